import Testing
import TesseraRecurrence

/// One rejected rule: the part the error must name and words its message must contain.
struct Rejection: Sendable, CustomTestStringConvertible {
    let text: String
    let part: String
    let says: String
    var testDescription: String { text.isEmpty ? "(empty)" : text }
}

@Suite struct RuleErrorTests {
    @Test(arguments: [
        // The text as a whole
        Rejection(text: "", part: "RRULE", says: "the rule is empty"),
        Rejection(text: "RRULE:", part: "RRULE", says: "the rule is empty"),
        Rejection(text: "FREQ=DAILY;BYHOUR", part: "BYHOUR", says: "expected NAME=VALUE, found 'BYHOUR'"),
        Rejection(text: "FREQ=DAILY;=5", part: "RRULE", says: "is not an RRULE part"),
        Rejection(text: "FREQ=DAILY;COLOR=RED", part: "COLOR", says: "is not an RRULE part Tessera knows"),
        Rejection(text: "FREQ=MONTHLY;BYSETPOS=-1", part: "BYSETPOS", says: "is not supported"),
        Rejection(text: "FREQ=DAILY;BYSECOND=0", part: "BYSECOND", says: "is not supported"),
        Rejection(text: "FREQ=YEARLY;BYWEEKNO=20", part: "BYWEEKNO", says: "is not supported"),
        Rejection(text: "FREQ=YEARLY;BYYEARDAY=100", part: "BYYEARDAY", says: "is not supported"),
        Rejection(text: "FREQ=DAILY;BYHOUR=8;BYHOUR=9", part: "BYHOUR", says: "appears more than once"),
        Rejection(text: "FREQ=DAILY;BYHOUR=", part: "BYHOUR", says: "has no value"),
        // FREQ
        Rejection(text: "BYHOUR=8", part: "FREQ", says: "is required"),
        Rejection(text: "FREQ=HOURLY", part: "FREQ", says: "'HOURLY' is not supported: use DAILY, WEEKLY, MONTHLY or YEARLY"),
        Rejection(text: "FREQ=MINUTELY", part: "FREQ", says: "'MINUTELY' is not supported"),
        Rejection(text: "FREQ=FORTNIGHTLY", part: "FREQ", says: "'FORTNIGHTLY' is not a frequency"),
        // INTERVAL and COUNT
        Rejection(text: "FREQ=DAILY;INTERVAL=0", part: "INTERVAL", says: "'0' is not a valid interval"),
        Rejection(text: "FREQ=DAILY;INTERVAL=-2", part: "INTERVAL", says: "'-2' is not a valid interval"),
        Rejection(text: "FREQ=DAILY;INTERVAL=+2", part: "INTERVAL", says: "'+2' is not a valid interval"),
        Rejection(text: "FREQ=DAILY;INTERVAL=10001", part: "INTERVAL", says: "from 1 to 10000"),
        Rejection(text: "FREQ=DAILY;COUNT=0", part: "COUNT", says: "'0' is not a valid count"),
        Rejection(text: "FREQ=DAILY;COUNT=1.5", part: "COUNT", says: "'1.5' is not a valid count"),
        Rejection(text: "FREQ=DAILY;COUNT=99999999999999999999", part: "COUNT", says: "is not a valid count"),
        Rejection(text: "FREQ=DAILY;COUNT=5;UNTIL=20260101", part: "COUNT", says: "cannot be combined with UNTIL"),
        // UNTIL
        Rejection(text: "FREQ=DAILY;UNTIL=2026-01-01", part: "UNTIL", says: "is not a date: use YYYYMMDD"),
        Rejection(text: "FREQ=DAILY;UNTIL=20260101T1200", part: "UNTIL", says: "is not a date"),
        Rejection(text: "FREQ=DAILY;UNTIL=20260101X120000", part: "UNTIL", says: "is not a date"),
        Rejection(text: "FREQ=DAILY;UNTIL=20270229", part: "UNTIL", says: "'20270229' is not a real date"),
        Rejection(text: "FREQ=DAILY;UNTIL=20261301", part: "UNTIL", says: "is not a real date"),
        Rejection(text: "FREQ=DAILY;UNTIL=20260101T240000Z", part: "UNTIL", says: "is not a real time of day"),
        // BYDAY
        Rejection(text: "FREQ=WEEKLY;BYDAY=9XX", part: "BYDAY",
                  says: "'9XX' is not a weekday: use MO…SU, optionally with an ordinal such as 2TU or -1FR"),
        Rejection(text: "FREQ=WEEKLY;BYDAY=MO,,TU", part: "BYDAY", says: "'' is not a weekday"),
        Rejection(text: "FREQ=MONTHLY;BYDAY=T2U", part: "BYDAY", says: "'T2U' is not a weekday"),
        Rejection(text: "FREQ=MONTHLY;BYDAY=0MO", part: "BYDAY", says: "'0MO' has ordinal 0"),
        Rejection(text: "FREQ=DAILY;BYDAY=2TU", part: "BYDAY", says: "only FREQ=MONTHLY and FREQ=YEARLY allow"),
        Rejection(text: "FREQ=WEEKLY;BYDAY=-1FR", part: "BYDAY", says: "only FREQ=MONTHLY and FREQ=YEARLY allow"),
        Rejection(text: "FREQ=MONTHLY;BYDAY=6MO", part: "BYDAY", says: "a month has at most 5"),
        Rejection(text: "FREQ=YEARLY;BYMONTH=1;BYDAY=-6MO", part: "BYDAY", says: "a month has at most 5"),
        Rejection(text: "FREQ=YEARLY;BYDAY=54MO", part: "BYDAY", says: "a year has at most 53"),
        // BYMONTHDAY, BYMONTH, BYHOUR, BYMINUTE, WKST
        Rejection(text: "FREQ=MONTHLY;BYMONTHDAY=0", part: "BYMONTHDAY", says: "'0' is not a day of the month"),
        Rejection(text: "FREQ=MONTHLY;BYMONTHDAY=32", part: "BYMONTHDAY", says: "'32' is not a day of the month"),
        Rejection(text: "FREQ=MONTHLY;BYMONTHDAY=-32", part: "BYMONTHDAY", says: "'-32' is not a day of the month"),
        Rejection(text: "FREQ=WEEKLY;BYMONTHDAY=1", part: "BYMONTHDAY", says: "is not allowed with FREQ=WEEKLY"),
        Rejection(text: "FREQ=YEARLY;BYMONTH=13", part: "BYMONTH", says: "'13' is not a month: use 1…12"),
        Rejection(text: "FREQ=YEARLY;BYMONTH=0", part: "BYMONTH", says: "'0' is not a month"),
        Rejection(text: "FREQ=DAILY;BYHOUR=24", part: "BYHOUR", says: "'24' is not an hour: use 0…23"),
        Rejection(text: "FREQ=DAILY;BYHOUR=-1", part: "BYHOUR", says: "'-1' is not an hour"),
        Rejection(text: "FREQ=DAILY;BYHOUR=8,,9", part: "BYHOUR", says: "'' is not an hour"),
        Rejection(text: "FREQ=DAILY;BYMINUTE=60", part: "BYMINUTE", says: "'60' is not a minute: use 0…59"),
        Rejection(text: "FREQ=WEEKLY;WKST=XX", part: "WKST", says: "'XX' is not a weekday"),
    ])
    func rejectsWithThePartAtFault(_ rejection: Rejection) {
        #expect {
            _ = try RecurrenceRule(parsing: rejection.text)
        } throws: { error in
            guard let error = error as? RecurrenceRuleError else { return false }
            return error.part == rejection.part && error.message.contains(rejection.says)
        }
    }

    @Test func theErrorReadsAsPartThenMessage() {
        let error = #expect(throws: RecurrenceRuleError.self) { try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=9XX") }
        #expect(error?.description
            == "BYDAY: '9XX' is not a weekday: use MO…SU, optionally with an ordinal such as 2TU or -1FR")
    }
}
