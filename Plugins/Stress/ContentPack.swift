import Foundation
import TesseraSDK

/// Everything the research team writes rather than the participant: the programme's texts and
/// questions, the diary's question pools, the questionnaires, the library tree and the about pages.
///
/// It comes as one versioned pack, Czech with Slovak and English (`ShippedContent.swift` is the pack
/// the module ships). An administrator can install a newer one (`content-publish`) without a new
/// build; the newest of the shipped and the installed pack is in force. A client that already holds
/// version N asks with `since: N` and is told "unchanged" — the thesis's `timestamp` with HTTP 204
/// (D3).
struct ContentPack: Codable, Sendable {
    var version: Int
    var programs: [Program]
    var levels: [Level]
    var diaryQuestions: [DiaryQuestion]
    var goalQuestions: [FormQuestion]
    var timeQuestions: [FormQuestion]
    var relaxation: Relaxation
    var meaningQuestions: [MeaningQuestion]
    var entryTest: ScaleForm
    var screen: ChoiceForm
    var scales: Scales
    var libraryIntro: Localized
    var library: [LibraryNode]
    var team: [TeamCategory]
    var research: Research
    var tech: Tech

    /// A text in Czech, with Slovak and English where translated.
    ///
    /// Czech is the one text every pack has. A missing Slovak text falls back to Czech, not to
    /// English: a research team's own pack may be written in Czech only, and Slovak readers read
    /// Czech. A missing English text falls back to Czech as well.
    struct Localized: Codable, Sendable, Hashable {
        var cs: String
        var sk: String?
        var en: String?

        /// The text in `language` (`cs`, `sk` or `en`); Czech for any other.
        func text(_ language: String) -> String {
            switch language {
            case "sk": sk ?? cs
            case "en": en ?? cs
            default: cs
            }
        }
    }

    struct Program: Codable, Sendable {
        var order: Int
        var title: String
        var name: Localized
        var intro: Localized
        var nextSteps: Localized
        var repeatable: Bool
        var hasSummary: Bool
    }

    struct Level: Codable, Sendable { var level: Int; var label: Localized }
    struct DiaryQuestion: Codable, Sendable { var id: Int; var level: Int; var text: Localized }
    struct FormQuestion: Codable, Sendable { var id: Int; var text: Localized; var multiline: Bool; var isGoal: Bool? }
    struct Page: Codable, Sendable { var title: Localized; var text: Localized }
    struct Relaxation: Codable, Sendable { var intro: [Page]; var techniques: [Page] }
    struct MeaningQuestion: Codable, Sendable { var id: Int; var type: Int; var text: Localized }
    struct ScaleForm: Codable, Sendable { var title: Localized; var items: [ScaleItem] }
    struct ScaleItem: Codable, Sendable { var id: Int; var text: Localized }
    struct ChoiceForm: Codable, Sendable { var title: Localized; var questions: [ChoiceQuestion] }
    struct ChoiceQuestion: Codable, Sendable { var id: Int; var text: Localized; var options: [Option] }
    struct Option: Codable, Sendable { var id: Int; var text: Localized }

    /// The inclusive ranges of every numeric answer (the thesis gives none but week 4's 1–7).
    struct Scales: Codable, Sendable {
        var entry: [Int]
        var meaning: [Int]
        var evaluation: [Int]
        var stress: [Int]
        var appRating: [Int]
    }

    struct LibraryNode: Codable, Sendable { var id: String; var parent: String?; var position: Int; var title: Localized; var text: Localized }
    struct TeamCategory: Codable, Sendable { var name: Localized; var members: [TeamMember] }
    struct TeamMember: Codable, Sendable { var heading: String; var description: Localized?; var email: String?; var phone: String?; var image: String? }
    struct Research: Codable, Sendable { var text: Localized; var subsections: [Section] }
    struct Section: Codable, Sendable { var name: Localized; var text: Localized }
    struct Tech: Codable, Sendable { var website: String; var moduleVersion: String }
}

extension ContentPack.Scales {
    static func contains(_ range: [Int], _ value: Int) -> Bool { range.count == 2 && value >= range[0] && value <= range[1] }
}
