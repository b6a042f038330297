import Foundation
import TesseraTestFixtures

/// Issue 24's rules that a request's schema words but cannot express: a rule across two fields
/// (`until` not before `start`), on what the host keeps (the saved PIN, the currency in force, a
/// stored record's kind, the deployment's lists) or on the host's clock (a reminder still ahead).
/// Each operation here names the fields such a rule is stated on, in the field's `description`
/// in its manifest. For these operations the fuzzing run lets `positive_data_acceptance` pass a
/// 400 or 422, and Tessera's own check (`hook`) judges it instead: the refusal must be
/// `invalid_input` naming one of those fields. Everywhere, a 400 must be
/// `invalid_input` naming its field. Every other check runs on every operation.
enum SchemathesisStatedRules {
    static let finance = "/v1/plugins/cz.tessera.finance/ops/"
    static let stress = "/v1/plugins/cz.tessera.stress/ops/"
    static let baby = "/v1/plugins/cz.tessera.baby/ops/"
    static let travel = "/v1/plugins/cz.tessera.safetravel/ops/"

    /// Operation path → the fields its stated rules are on.
    static let fields: [String: [String]] = [
        // Letters of any script: no pattern both the host (ICU) and the generator read says it.
        finance + "category-add": ["$.name"],
        // A zone the host's time zone database knows; a confirmation only when the currency changes.
        finance + "settings-set": ["$.timeZone", "$.confirm"],
        // The header and every line of a CSV text.
        finance + "import-csv": ["$.csv"],
        // A bank statement's file and its columns: readable as CSV or CAMT.053, the mapping's
        // columns in the file.
        finance + "statement-preview": ["$.file", "$.options.mapping"],
        finance + "statement-import": ["$.file", "$.options.mapping"],
        // Across fields and the stored transaction: parts that add up to its amount; a rule with
        // a condition, its smallest amount not above its largest.
        finance + "transaction-split": ["$.parts"],
        finance + "category-rule-add": ["$.match", "$.maxAmount"],
        finance + "category-rule-test": ["$.match", "$.maxAmount"],
        // Across fields: `until` not before `start`; `to` not before `from`, at most 366 days on.
        finance + "recurring-add": ["$.until"],
        finance + "overview": ["$.to"],
        finance + "chart-svg": ["$.to"],
        // A content pack's rules across its members: unique ids, a question for every level,
        // one goal question, a library that is a tree, a scale's lowest below its highest.
        stress + "content-publish": ["$.pack"],
        // On the host's clock: a birth date not after today, a reminder still ahead.
        baby + "child-create": ["$.birthDate"],
        baby + "child-update": ["$.birthDate"],
        baby + "vaccination-add": ["$.remindAt"],
        baby + "visit-add": ["$.remindAt", "$.doctorId"],
        baby + "reminder-set": ["$.remindAt"],
        // On the host's clock and the stored child: a measurement not after today nor before the
        // birth, and not far outside the WHO standard for the child unless confirmed; a position
        // only for a height, and not standing under 9 months; oedema only for a weight.
        baby + "measurement-add": ["$.date", "$.value", "$.position", "$.oedema"],
        // Daily care: times not ahead on the host's clock, an end not before the start; what each
        // kind may have (an amount only for a bottle or pumping, a nappy's content for a nappy).
        baby + "care-add": ["$.at", "$.endAt", "$.nappy", "$.amountMl"],
        baby + "care-update": ["$.at", "$.endAt", "$.nappy", "$.amountMl"],
        baby + "care-stop": ["$.amountMl"],
        // Baby Buddy's shapes: a page with results, a list, or lists by their names.
        baby + "care-import": ["$.data"],
        // Across fields, or on the stored record: `until` not before `from` (today if left out),
        // an end not before the problem's start, what a stored record's kind may have.
        baby + "medication-add": ["$.until"],
        baby + "problem-close": ["$.endDate"],
        baby + "health-item-update": ["$.date", "$.severity"],
        baby + "record-update": ["$.value", "$.photos", "$.position", "$.oedema"],
        baby + "record-assign": ["$.id"],
        baby + "contact-update": ["$.specialization", "$.officeHours"],
        // The deployment's insurer list; a cursor only a previous page gives.
        baby + "health-card-set": ["$.insurer"],
        baby + "timeline": ["$.cursor"],
        // The saved PIN; your own username; on the host's clock (a fix not from the future, a
        // check-in period ahead, an arrival ahead); the deployment's period options.
        travel + "pin-change": ["$.oldPin"],
        travel + "sos-enter-pin": ["$.pin"],
        travel + "trip-acknowledge": ["$.pin"],
        travel + "trip-end": ["$.pin"],
        travel + "trip-delete": ["$.pin"],
        travel + "sos-delete": ["$.pin"],
        travel + "alert-acknowledge": ["$.pin"],
        travel + "guardian-add": ["$.username"],
        travel + "position-report": ["$.at"],
        travel + "checkin-request-periodic": ["$.startsAt", "$.endsAt", "$.periodMinutes"],
        travel + "trip-start": ["$.expectedArrivalAt"],
        travel + "trip-update-eta": ["$.expectedArrivalAt"],
    ]

    /// schemathesis.toml sections: where a stated rule may refuse, positive_data_acceptance also
    /// lets 400 and 422 through, for ``checkName`` to judge. (Not `enabled = false`: a check named
    /// on the command line wins over an operation's `enabled`.)
    static var configuration: String {
        fields.keys.sorted().map {
            """
            [[operations]]
            include-path = "\($0)"
            checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "422", "429"]

            """
        }.joined(separator: "\n")
    }

    /// Writes the hook and the rules into the workspace; answers the environment that loads them.
    static func install(in ws: FixtureWorkspace) throws -> [String: String] {
        let rules = ws.root + "/stated-rules.json", checks = ws.root + "/tessera_checks.py"
        try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]).write(to: URL(fileURLWithPath: rules))
        Fixtures.write(hook, to: checks)
        return ProcessInfo.processInfo.environment.merging(["SCHEMATHESIS_HOOKS": checks, "TESSERA_STATED_RULES": rules]) { $1 }
    }

    /// The check's name, for `--checks`.
    static let checkName = "refusal_names_a_stated_rule"

    static let hook = """
        # Tessera's own check for the fuzzing run (written by SchemathesisModulesTests).
        # A 400 is `invalid_input` naming its field. On an operation whose schema words a rule it
        # cannot express (TESSERA_STATED_RULES: path -> fields), a 400 or 422 must be
        # `invalid_input` naming one of the fields that rule is stated on.
        import json
        import os

        import schemathesis
        from schemathesis.specs.openapi.checks import is_unexpected_http_status_case

        with open(os.environ["TESSERA_STATED_RULES"]) as rules:
            STATED = json.load(rules)


        def _names(field, fields):
            return any(field == f or field.startswith(f + "[") or field.startswith(f + ".") for f in fields)


        @schemathesis.check
        def refusal_names_a_stated_rule(ctx, response, case):
            if response.status_code not in (400, 422) or is_unexpected_http_status_case(case):
                return None
            try:
                error = response.json()["error"]
            except Exception:
                raise AssertionError(f"a {response.status_code} without an error body: {response.text[:300]}")
            if response.status_code == 400 and (error.get("code") != "invalid_input" or not error.get("field")):
                raise AssertionError(f"a 400 that is not invalid_input naming a field: {error}")
            fields = STATED.get(case.operation.path)
            if fields is None:
                return None  # positive_data_acceptance judges the other operations
            if error.get("code") != "invalid_input" or not _names(error.get("field") or "", fields):
                raise AssertionError(f"refused by no rule the schema states (stated on {', '.join(fields)}): {error}")
            return None

        """
}
