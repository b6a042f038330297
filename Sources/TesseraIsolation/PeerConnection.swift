import Foundation
import Synchronization
import TesseraSDK

/// Calls both ways over one ``FrameConnection``: each side asks the other (`call`) and answers
/// what it is asked (its handler), with several calls in flight at once.
///
/// Messages (JSON objects, one per frame):
/// - a call: `{"call": N, "method": "storage.write", "params": {…}}`; `N` = 0 asks for no answer;
/// - an answer: `{"reply": N, "result": …}` or `{"reply": N, "error": {"code", "message", "field"}}`
///   for a ``PluginError``, `{"reply": N, "error": {"opaque": "…"}}` for any other error.
///
/// One thread reads (``start(closed:)``). On the host it only reads: each call from the child is
/// answered in a task of its own on the global pool. In the child it is a ``ChildEventLoop``: the
/// host's calls are answered in tasks that prefer that thread, so most run and reply there.
public final class PeerConnection: Sendable {
    /// Answers one call from the other side.
    public typealias Handler = @Sendable (_ method: String, _ params: JSONValue) async throws -> JSONValue

    public let frames: FrameConnection
    private let handler: Handler
    /// The most calls from the other side answered at once (`nil`: no limit).
    private let maxCallsInFlight: Int?
    /// The child's event loop; `nil` on the host, whose reader thread only reads.
    private let loop: ChildEventLoop?
    private let state = Mutex(State())

    private struct State {
        var nextID = 0
        var pending: [Int: @Sendable (Result<JSONValue, any Error>) -> Void] = [:]
        /// Set once the socket ended: every later call fails with it at once.
        var closedError: (any Error)?
        /// Calls from the other side being answered now.
        var answering = 0
    }

    /// `maxCallsInFlight` bounds the calls from the other side answered at once: one more is
    /// refused `unavailable` on the reader thread, without a task. (The reader is not made to
    /// wait instead: an answer the other side sends may be what a call in flight waits for.)
    /// With `eventLoop`, the reader thread runs the handlers (the child's side).
    public init(fd: Int32, maxCallsInFlight: Int? = nil, eventLoop: ChildEventLoop? = nil, handler: @escaping Handler) {
        frames = FrameConnection(fd: fd)
        self.maxCallsInFlight = maxCallsInFlight
        self.loop = eventLoop
        self.handler = handler
    }

    /// Starts the reader thread. When the socket ends, `closed` names why (the host asks the
    /// kernel how the child ended) and every call waiting for an answer fails with that error.
    public func start(closed: @escaping @Sendable () -> any Error) {
        let thread = Thread { [self] in
            if let loop { loop.run(frames) { dispatch($0) } } else { readLoop() }
            let error = closed()
            let waiting = state.withLock { s -> [@Sendable (Result<JSONValue, any Error>) -> Void] in
                s.closedError = error
                defer { s.pending = [:] }
                return Array(s.pending.values)
            }
            for answer in waiting { answer(.failure(error)) }
        }
        thread.name = "tessera-peer-\(frames.fd)"
        thread.start()
    }

    private func readLoop() {
        while true {
            let message: JSONValue?
            do { message = try frames.receive() } catch { return }
            guard let message else { return }
            dispatch(message)
        }
    }

    /// One frame from the other side: an answer goes to the call waiting for it; a call starts its
    /// handler (on the event loop, when there is one) or is refused past the limit.
    private func dispatch(_ message: JSONValue) {
        if let id = message["reply"]?.integerValue {
            let answer = state.withLock { $0.pending.removeValue(forKey: Int(id)) }
            if let error = message["error"] {
                answer?(.failure(WireError.decode(error)))
            } else {
                answer?(.success(message["result"] ?? .null))
            }
        } else if let id = message["call"]?.integerValue, let method = message["method"]?.stringValue {
            let params = message["params"] ?? .null
            guard admit() else {
                let refusal = PluginError(.unavailable, "\(maxCallsInFlight ?? 0) calls are being answered already, the most the host answers at once for one plugin; retry when one has returned")
                if id != 0 { try? frames.send(["reply": .integer(id), "error": WireError.encode(refusal)]) }
                return
            }
            if let loop {
                Task(executorPreference: loop) { await self.answer(id: id, method: method, params: params) }
            } else {
                Task { await self.answer(id: id, method: method, params: params) }
            }
        }
    }

    /// Counts a call from the other side in, if the limit allows one more.
    private func admit() -> Bool {
        state.withLock { s in
            if let limit = maxCallsInFlight, s.answering >= limit { return false }
            s.answering += 1
            return true
        }
    }

    private func answer(id: Int64, method: String, params: JSONValue) async {
        let reply: JSONValue
        do {
            let result = try await handler(method, params)
            reply = ["reply": .integer(id), "result": result]
        } catch {
            reply = ["reply": .integer(id), "error": WireError.encode(error)]
        }
        // Counted out before the answer goes: the other side may call again as soon as it reads it.
        state.withLock { $0.answering -= 1 }
        if id != 0 { try? frames.send(reply) }
    }

    /// Asks the other side and waits for its answer.
    public func call(_ method: String, _ params: JSONValue = .null) async throws -> JSONValue {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<JSONValue, any Error>) in
            send(method, params) { c.resume(with: $0) }
        }
    }

    /// Asks the other side and blocks this thread until it answers: for the few synchronous
    /// SDK members (`HostClock.now()`). The answer arrives on the reader thread; on the child's
    /// event loop, which is that thread, this call reads the socket itself until its answer comes,
    /// handing every other frame on as the loop would (their work runs once this returns).
    public func callBlocking(_ method: String, _ params: JSONValue = .null) throws -> JSONValue {
        let box = Mutex<Result<JSONValue, any Error>?>(nil)
        if let loop, loop.isCurrentThread {
            send(method, params) { result in box.withLock { $0 = result } }
            while true {
                if let result = box.withLock({ $0 }) { return try result.get() }
                guard let message = try frames.receive() else { throw FrameError.truncated }
                dispatch(message)
            }
        }
        let done = DispatchSemaphore(value: 0)
        send(method, params) { result in
            box.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try box.withLock { $0! }.get()
    }

    /// Asks the other side and hands its answer to `answer` (on the reader thread), for a caller
    /// that waits its own way (the host's deadlines, ``fail(call:with:)``). Returns the call's
    /// number; `nil` when the connection had already ended (then `answer` was told so).
    @discardableResult
    public func startCall(_ method: String, _ params: JSONValue, answer: @escaping @Sendable (Result<JSONValue, any Error>) -> Void) -> Int? {
        send(method, params, answer: answer)
    }

    /// Answers the call numbered `id` with `error` now, if it still waits (its deadline passed);
    /// the other side's answer, if it comes later, is dropped.
    public func fail(call id: Int, with error: any Error) {
        state.withLock { $0.pending.removeValue(forKey: id) }?(.failure(error))
    }

    /// Tells the other side something that needs no answer (a log line).
    public func notify(_ method: String, _ params: JSONValue = .null) {
        try? frames.send(["call": 0, "method": .string(method), "params": params])
    }

    @discardableResult
    private func send(_ method: String, _ params: JSONValue, answer: @escaping @Sendable (Result<JSONValue, any Error>) -> Void) -> Int? {
        let registered = state.withLock { s -> Result<Int, any Error> in
            if let closed = s.closedError { return .failure(closed) }
            s.nextID += 1
            s.pending[s.nextID] = answer
            return .success(s.nextID)
        }
        switch registered {
        case .failure(let error):
            answer(.failure(error))
            return nil
        case .success(let id):
            do { try frames.send(["call": .integer(Int64(id)), "method": .string(method), "params": params]) } catch FrameError.closed {
                // The other side is gone (or the stream broke mid-frame, which leaves it unusable):
                // the call stays pending and the reader fails it, once it sees the end, with how the
                // other side ended (a child's crash: `plugin_crashed` and its signal), not with this
                // write's errno. Shutting down makes sure the reader sees that end.
                frames.shutDown()
            } catch {
                // Nothing was written (a frame too large): the stream is intact, only this call fails.
                let stillWaiting = state.withLock { $0.pending.removeValue(forKey: id) }
                stillWaiting?(.failure(error))
            }
            return id
        }
    }

    /// Ends the connection from this side: the reader sees the end, the peer too.
    public func shutDown() { frames.shutDown() }
}

/// Errors as they cross the socket.
public enum WireError {
    /// An error that is not a ``PluginError``: it crosses as text, and the host treats it as
    /// in-process code's other errors (logged; the caller sees a generic `internal`).
    public struct Opaque: Error, CustomStringConvertible {
        public let description: String
    }

    static func encode(_ error: any Error) -> JSONValue {
        if let error = error as? PluginError {
            var o: [String: JSONValue] = ["code": .string(error.code.rawValue), "message": .string(error.message)]
            if let field = error.field { o["field"] = .string(field) }
            return .object(o)
        }
        return ["opaque": .string("\(error)")]
    }

    static func decode(_ json: JSONValue) -> any Error {
        if let code = json["code"]?.stringValue {
            return PluginError(PluginError.Code(rawValue: code), json["message"]?.stringValue ?? "", field: json["field"]?.stringValue)
        }
        return Opaque(description: json["opaque"]?.stringValue ?? "an error in the plugin process")
    }
}
