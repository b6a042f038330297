import TesseraSDK

/// The checks a content pack passes before it is put in force: every rule the module relies on
/// (four programmes in order, a question for every stress level, one goal question, a library that
/// is a tree) holds, so a bad pack is refused whole instead of breaking the programme half-way.
extension ContentPack {
    static let programTitles = ["goal", "relaxation", "time-management", "searching-for-meaning"]

    func validate() throws {
        func fail(_ message: String, _ path: String) -> PluginError { .invalid(message, field: "$.pack.\(path)") }
        guard version >= 1 else { throw fail("the version is a whole number from 1", "version") }
        guard programs.map(\.order) == [0, 1, 2, 3], programs.map(\.title) == Self.programTitles else {
            throw fail("the four programmes are \(Self.programTitles.joined(separator: ", ")), in order 0–3", "programs")
        }
        guard levels.map(\.level) == [1, 2, 3, 4] else { throw fail("the stress levels are 1–4, with no neutral one", "levels") }
        for level in 1...4 where !diaryQuestions.contains(where: { $0.level == level }) {
            throw fail("stress level \(level) has no diary question", "diaryQuestions")
        }
        try Self.unique(diaryQuestions.map(\.id), "diaryQuestions", fail)
        guard !goalQuestions.isEmpty, goalQuestions.filter({ $0.isGoal == true }).count == 1 else {
            throw fail("week 1 has questions and exactly one of them is the goal (isGoal)", "goalQuestions")
        }
        try Self.unique(goalQuestions.map(\.id), "goalQuestions", fail)
        guard !timeQuestions.isEmpty else { throw fail("week 3 has at least one question", "timeQuestions") }
        try Self.unique(timeQuestions.map(\.id), "timeQuestions", fail)
        guard !relaxation.techniques.isEmpty else { throw fail("relaxation has at least one technique page", "relaxation") }
        guard !meaningQuestions.isEmpty, meaningQuestions.allSatisfy({ (1...3).contains($0.type) }) else {
            throw fail("week 4's questions are of type 1 (presence), 2 (searching) or 3 (other)", "meaningQuestions")
        }
        try Self.unique(meaningQuestions.map(\.id), "meaningQuestions", fail)
        guard !entryTest.items.isEmpty else { throw fail("the entry test has at least one item", "entryTest") }
        try Self.unique(entryTest.items.map(\.id), "entryTest.items", fail)
        guard !screen.questions.isEmpty, screen.questions.allSatisfy({ $0.options.count >= 2 }) else {
            throw fail("the screening questionnaire has questions with at least two options each", "screen")
        }
        try Self.unique(screen.questions.map(\.id), "screen.questions", fail)
        for (name, range) in [("entry", scales.entry), ("meaning", scales.meaning), ("evaluation", scales.evaluation),
                              ("stress", scales.stress), ("appRating", scales.appRating)] where range.count != 2 || range[0] >= range[1] {
            throw fail("a scale is [lowest, highest]", "scales.\(name)")
        }
        try validateLibrary(fail)
    }

    private func validateLibrary(_ fail: (String, String) -> PluginError) throws {
        try Self.unique(library.map(\.id), "library", fail)
        let parents = Dictionary(uniqueKeysWithValues: library.map { ($0.id, $0.parent) })
        for node in library {
            var seen: Set<String> = [node.id]
            var next = node.parent
            while let id = next {
                guard let parent = parents[id] else { throw fail("'\(node.id)' names a parent '\(id)' that is not in the library", "library") }
                guard seen.insert(id).inserted else { throw fail("the library has a cycle through '\(id)'", "library") }
                next = parent
            }
        }
    }

    private static func unique<T: Hashable>(_ ids: [T], _ path: String, _ fail: (String, String) -> PluginError) throws {
        guard Set(ids).count == ids.count else { throw fail("ids must be unique", path) }
    }
}
