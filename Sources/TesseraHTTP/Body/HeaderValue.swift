import HTTPTypes

extension HTTPFields {
    /// The value of the field called `name`, as `self[name]` gives it: `nil` if absent, every
    /// value joined if it occurs more than once. A field that occurs once (every request's
    /// `Authorization` and `Content-Type`) is read without the subscript's join, which goes through
    /// the standard library's generic `joined(separator:)`, unspecialised here: its type look-ups
    /// were 2 % of an operation call's CPU in a profile of `tessera-bench http`.
    func value(of name: HTTPField.Name) -> String? {
        var value: String?
        for field in self where field.name == name {
            if value != nil { return self[name] }
            value = field.value
        }
        return value
    }
}
