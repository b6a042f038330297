import Foundation
import TesseraSDK

/// What signing in with a name and a password needs: the accounts, the sessions, the throttle.
public final class SignIn: Sendable {
    public let accounts: LocalAccounts
    let sessions: SessionStore
    let throttle = SignInThrottle()

    public init(dataDirectory: String) {
        accounts = LocalAccounts(dataDirectory: dataDirectory)
        sessions = SessionStore(dataDirectory: dataDirectory)
    }

    /// The principal of the session whose cookie secret is `secret`: its account as it is now
    /// (the file is read each time, so an account removed or made a user by `tessera account`
    /// beside a running server loses what it had at once); `nil` for none.
    func principal(forCookie secret: String, now: Date) -> Principal? {
        guard let session = sessions.principal(for: secret, now: now), let account = accounts.account(named: session.id) else { return nil }
        return Principal(id: account.name, role: account.role)
    }
}
