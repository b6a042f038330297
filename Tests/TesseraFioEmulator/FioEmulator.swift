import Foundation
import Hummingbird
import Logging
import Synchronization

/// Fio banka's REST API as the finance module uses it (`periods/{token}/{from}/{to}/transactions.json`),
/// on a loopback port, shaped like the real one (research §3.4): `accountStatement.info` and
/// `transactionList.transaction[]` of `{name, value, id}` columns; 409 for a second call with a
/// token within 30 s, 422 for data older than 90 days, on the emulator's own settable clock.
/// Assumed, not confirmed: an unknown token gets 404 (the real answer is not documented).
public final class FioEmulator: Sendable {
    /// A movement: column 10 (counter-account name), 16 (message for the recipient), 7 (user
    /// identification) and 25 (comment) as Fio fills them, each null when not given.
    public struct Movement: Sendable {
        public var id: Int64, date: String, amount: Double, counterparty: String?, message: String?
        public var userIdentification: String?, comment: String?
        public init(id: Int64, date: String, amount: Double, counterparty: String? = nil, message: String? = nil,
                    userIdentification: String? = nil, comment: String? = nil) {
            self.id = id; self.date = date; self.amount = amount; self.counterparty = counterparty; self.message = message
            self.userIdentification = userIdentification; self.comment = comment
        }
    }
    public enum Fault: Sendable { case status(Int), malformed }

    public let port: Int
    private let task: Task<Void, any Error>
    private let box: StateBox

    struct State {
        var now: Date
        var accounts: [String: (currency: String, movements: [Movement])] = [:]
        var lastCall: [String: Date] = [:]
        var requests: [String] = []
        var fault: Fault?
    }

    /// The request paths it answered, the token replaced by `TOKEN`.
    public var requests: [String] { box.state.withLock { $0.requests } }

    public func addAccount(token: String, currency: String = "EUR", movements: [Movement]) {
        box.state.withLock { $0.accounts[token] = (currency, movements) }
    }
    public func addMovements(token: String, _ movements: [Movement]) { box.state.withLock { $0.accounts[token]?.movements += movements } }
    public func advance(seconds: TimeInterval) { box.state.withLock { $0.now = $0.now.addingTimeInterval(seconds) } }
    public func inject(_ fault: Fault?) { box.state.withLock { $0.fault = fault } }

    private init(port: Int, task: Task<Void, any Error>, box: StateBox) {
        self.port = port; self.task = task; self.box = box
    }

    /// Starts on a free loopback port; `now` is the emulator's clock.
    public static func start(now: Date) async throws -> FioEmulator {
        let box = StateBox(State(now: now))
        let router = Router()
        router.get("/v1/rest/periods/{token}/{from}/{to}/{file}") { request, context -> Response in
            let token = context.parameters.get("token") ?? "", from = context.parameters.get("from") ?? "", to = context.parameters.get("to") ?? ""
            return box.answer(token: token, from: from, to: to, file: context.parameters.get("file") ?? "")
        }
        let (ports, sink) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "fio-emulator")
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { sink.yield($0.localAddress?.port ?? 0); sink.finish() }, logger: logger)
        let task = Task { try await app.runService() }
        for await port in ports { return FioEmulator(port: port, task: task, box: box) }
        throw CancellationError()
    }

    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

/// The emulator's state, shared with its route.
final class StateBox: Sendable {
    let state: Mutex<FioEmulator.State>
    init(_ state: FioEmulator.State) { self.state = Mutex(state) }

    func answer(token: String, from: String, to: String, file: String) -> Response {
        state.withLock { s in
            s.requests.append("/v1/rest/periods/TOKEN/\(from)/\(to)/\(file)")
            if case .status(let code)? = s.fault { return Self.text(code, "error") }
            guard file == "transactions.json", let account = s.accounts[token] else { return Self.text(404, "Not Found") }
            if let last = s.lastCall[token], s.now.timeIntervalSince(last) < 30 { return Self.text(409, "Conflict") }
            s.lastCall[token] = s.now
            let oldest = Self.day(s.now.addingTimeInterval(-90 * 86_400))
            if from < oldest {
                return Self.text(422, "Data není možné poskytnout bez silné autorizace. Nebo požádejte o data, která nejsou starší jak 90 dní.")
            }
            if case .malformed? = s.fault { return Self.text(200, #"{"accountStatement": {"info": "#) }
            let movements = account.movements.filter { $0.date >= from && $0.date <= to }
            return Self.json(Self.statement(account.currency, movements, from: from, to: to))
        }
    }

    static func statement(_ currency: String, _ movements: [FioEmulator.Movement], from: String, to: String) -> String {
        func column(_ id: Int, _ name: String, _ value: String?) -> String {
            guard let value else { return "\"column\(id)\":null" }
            return #""column\#(id)":{"name":"\#(name)","value":\#(value),"id":\#(id)}"#
        }
        func quoted(_ text: String?) -> String? { text.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\\\"") + "\"" } }
        let transactions = movements.map { m in
            "{" + [column(22, "ID pohybu", String(m.id)), column(0, "Datum", quoted(m.date + "+0100")), column(1, "Objem", String(m.amount)),
                   column(14, "Měna", quoted(currency)), column(10, "Název protiúčtu", quoted(m.counterparty)),
                   column(16, "Zpráva pro příjemce", quoted(m.message)), column(7, "Uživatelská identifikace", quoted(m.userIdentification)),
                   column(8, "Typ", quoted("Platba kartou")), column(25, "Komentář", quoted(m.comment)), column(4, "KS", nil)]
                .joined(separator: ",") + "}"
        }
        return #"{"accountStatement":{"info":{"accountId":"2900000000","bankId":"2010","currency":"\#(currency)","iban":"CZ6520100000002900000000","bic":"FIOBCZPPXXX","openingBalance":0.0,"closingBalance":0.0,"dateStart":"\#(from)+0100","dateEnd":"\#(to)+0100","yearList":null,"idList":null,"idFrom":null,"idTo":null,"idLastDownload":null},"transactionList":{"transaction":[\#(transactions.joined(separator: ","))]}}}"#
    }

    static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Prague")!
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    static func text(_ status: Int, _ body: String) -> Response {
        Response(status: .init(code: status), headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    static func json(_ body: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json;charset=UTF-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
