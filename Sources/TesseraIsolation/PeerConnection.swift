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
///
/// The host's calls into the child may also go on a lane (``CallLanes``), a socket of their own
/// whose answer the calling thread reads itself; a call is answered on the socket it came on.
public final class PeerConnection: Sendable {
    /// Answers one call from the other side.
    public typealias Handler = @Sendable (_ method: String, _ params: JSONValue) async throws -> JSONValue
    /// Answers an operation call from the other side, its input as text (the child's side).
    public typealias OperationHandler = @Sendable (OperationFrame) async throws -> JSONValue

    /// What a call asks the other side: a method with its params, or an operation (``OperationFrame``).
    public enum Request: Sendable {
        case method(String, JSONValue)
        case operation(OperationFrame)

        func message(id: Int64) -> PeerMessage {
            switch self {
            case .method(let method, let params): return .call(id: id, method: method, params: params)
            case .operation(let frame): return .operation(id: id, frame)
            }
        }
    }

    public let frames: FrameConnection
    /// The host's lanes to the child (``CallLanes``); `nil` in the child and without lanes.
    private let callLanes: CallLanes?
    /// The child's ends of the lanes, read by its event loop beside ``frames``.
    private let laneConnections: [FrameConnection]
    private let handler: Handler
    /// Answers operation calls; `nil` (the host) hands them to ``handler`` as a method's params.
    private let operationHandler: OperationHandler?
    /// The most calls from the other side answered at once (`nil`: no limit).
    private let maxCallsInFlight: Int?
    /// The child's event loop; `nil` on the host, whose reader thread only reads.
    private let loop: ChildEventLoop?
    private let state = Mutex(State())

    private struct State {
        var nextID = 0
        var pending: [Int: @Sendable (Result<AnswerText, any Error>) -> Void] = [:]
        /// Set once the socket ended: every later call fails with it at once.
        var closedError: (any Error)?
        /// Calls from the other side being answered now.
        var answering = 0
    }

    /// `maxCallsInFlight` bounds the calls from the other side answered at once: one more is
    /// refused `unavailable` on the reader thread, without a task. (The reader is not made to
    /// wait instead: an answer the other side sends may be what a call in flight waits for.)
    /// With `eventLoop`, the reader thread runs the handlers (the child's side). `lanes` are the
    /// descriptors of this side's ends of the lanes, if any; on the host, `briefWaiters` counts the
    /// callers waiting on lanes, and `busyPolling` is how long a caller polls its lane before
    /// sleeping (``BusyPolling``).
    public init(fd: Int32, lanes: [Int32] = [], briefWaiters: BriefWaiters = .shared, busyPolling: BusyPolling = .off,
                maxCallsInFlight: Int? = nil, eventLoop: ChildEventLoop? = nil, operationHandler: OperationHandler? = nil,
                handler: @escaping Handler) {
        frames = FrameConnection(fd: fd)
        callLanes = eventLoop == nil && !lanes.isEmpty
            ? CallLanes(fds: lanes, briefWaiters: briefWaiters, busyPolling: busyPolling) : nil
        laneConnections = eventLoop == nil ? [] : lanes.map(FrameConnection.init(fd:))
        self.maxCallsInFlight = maxCallsInFlight
        self.loop = eventLoop
        self.handler = handler
        self.operationHandler = operationHandler
    }

    /// Starts the reader thread. When the socket ends, `closed` names why (the host asks the
    /// kernel how the child ended) and every call waiting for an answer fails with that error.
    public func start(closed: @escaping @Sendable () -> any Error) {
        let thread = Thread { [self] in
            if let loop {
                loop.run([frames] + laneConnections) { dispatch($0, replyOn: $1) }
            } else if let callLanes {
                readLoop(watching: callLanes)
            } else {
                readLoop()
            }
            let error = closed()
            let waiting = state.withLock { s -> [@Sendable (Result<AnswerText, any Error>) -> Void] in
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
            let message: PeerMessage?
            do { message = try frames.receiveMessage() } catch { return }
            guard let message else { return }
            dispatch(message)
        }
    }

    /// The host's reader with lanes: it sleeps in `poll` on the main socket, the lanes handed over
    /// to it by callers whose brief wait ran out, and the pipe that tells it of a new one.
    private func readLoop(watching lanes: CallLanes) {
        while true {
            do {
                if let next = try frames.bufferedMessage() { dispatch(next); continue }
            } catch { return }
            let watched = lanes.watched()
            var fds = [pollfd(fd: frames.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: lanes.wake.readEnd, events: Int16(POLLIN), revents: 0)]
            fds += watched.map { pollfd(fd: lanes.connections[$0].fd, events: Int16(POLLIN), revents: 0) }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                // Interrupted: round the loop, which reads the frames and lanes again before the next wait.
                if errno == EINTR { continue } else { return }
            }
            if fds[1].revents != 0 { lanes.wake.drain() }
            for (i, lane) in watched.enumerated() where fds[2 + i].revents != 0 {
                readAnswer(on: lane, of: lanes)
            }
            if fds[0].revents != 0 {
                do { guard try frames.readAvailable() else { return } } catch { return }
            }
        }
    }

    /// Reads what a handed-over lane holds; once its answer is whole, hands it on and frees the lane.
    private func readAnswer(on lane: Int, of lanes: CallLanes) {
        let connection = lanes.connections[lane]
        do {
            guard try connection.readAvailable() else { return lanes.readerDone(lane, ended: true) }
            guard let answer = try connection.bufferedMessage() else { return }
            // Freed before the answer goes: the caller it resumes may call again at once and
            // should find its lane free, not fall back to the main socket. Nothing is left to
            // read on the lane, so the next caller may read it meanwhile.
            lanes.readerDone(lane, ended: false)
            dispatch(answer)
        } catch {
            lanes.readerDone(lane, ended: true)
        }
    }

    /// One frame from the other side: an answer goes to the call waiting for it; a call starts its
    /// handler (on the event loop, when there is one) or is refused past the limit.
    private func dispatch(_ message: PeerMessage, replyOn connection: FrameConnection? = nil) {
        let connection = connection ?? frames
        switch message {
        case .answer(let id, let text):
            state.withLock { $0.pending.removeValue(forKey: Int(id)) }?(.success(text))
        case .reply(let id, let result):  // not read from a frame (that is `.answer`), but complete
            state.withLock { $0.pending.removeValue(forKey: Int(id)) }?(.success(AnswerText(result)))
        case .failure(let id, let error):
            state.withLock { $0.pending.removeValue(forKey: Int(id)) }?(.failure(WireError.decode(error)))
        case .call(let id, let method, let params):
            start(id: id, on: connection) { [handler] in try await handler(method, params) }
        case .operation(let id, let frame):
            start(id: id, on: connection) { [handler, operationHandler] in
                if let operationHandler { return try await operationHandler(frame) }
                return try await handler(ChildMethod.operation, frame.params)
            }
        case .other:
            break
        }
    }

    /// Starts answering the call numbered `id` with `work` (on the event loop, when there is one),
    /// or refuses it past the limit.
    private func start(id: Int64, on connection: FrameConnection, _ work: @escaping @Sendable () async throws -> JSONValue) {
        guard admit() else {
            let refusal = PluginError(.unavailable, "\(maxCallsInFlight ?? 0) calls are being answered already, the most the host answers at once for one plugin; retry when one has returned")
            if id != 0 { Self.send(.failure(id: id, error: WireError.encode(refusal)), on: connection) }
            return
        }
        if let loop {
            Task(executorPreference: loop) { await self.answer(id: id, on: connection, work) }
        } else {
            Task { await self.answer(id: id, on: connection, work) }
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

    private func answer(id: Int64, on connection: FrameConnection, _ work: @Sendable () async throws -> JSONValue) async {
        let reply: PeerMessage
        do {
            reply = .reply(id: id, result: try await work())
        } catch {
            reply = .failure(id: id, error: WireError.encode(error))
        }
        // Counted out before the answer goes: the other side may call again as soon as it reads it.
        state.withLock { $0.answering -= 1 }
        if id != 0 { Self.send(reply, on: connection) }
    }

    /// Sends an answer. One that cannot be sent (the other side is gone, or a write failed part way
    /// through a frame) ends the connection: the other side then fails every call it waits on at
    /// once ("the connection ended"), instead of at each call's deadline, and a half-written frame
    /// is never followed by another.
    private static func send(_ reply: PeerMessage, on connection: FrameConnection) {
        do { try connection.send(reply) } catch { connection.shutDown() }
    }

    /// How many lanes the host gives a child (``CallLanes``): `asked`, or the host's choice when
    /// `nil`; at most 4.
    public static func lanesPerChild(asked: Int?) -> Int { CallLanes.perChild(asked: asked) }

    /// How many calls on lanes were handed over to the reader thread (their brief wait ran out).
    public var callsHandedToReader: Int { callLanes?.handedOver ?? 0 }

    /// How many calls on lanes polled for their answer before sleeping (``BusyPolling``).
    public var callsThatPolledFirst: Int { callLanes?.polledWaits ?? 0 }

    /// Whether the callers' polls have been paying (``PollingPayoff``); `nil` without lanes.
    public var callersPollingPayoff: PollingPayoff? { callLanes?.payoff }

    /// Asks the other side and waits for its answer: on a lane of its own when one is free, reading
    /// the answer on this thread for up to `briefly` (``CallLanes``), then suspended until the
    /// reader thread has it. `started` is told the call's number once it is sent (the host records
    /// its deadline then); `answered` runs once its answer is in, on whichever thread read it,
    /// before the caller resumes.
    public func call(_ method: String, _ params: JSONValue, waitingBriefly briefly: Duration,
                     started: (Int) -> Void, answered: @escaping @Sendable () -> Void) async throws -> JSONValue {
        try await call(.method(method, params), waitingBriefly: briefly, started: started, answered: answered)
    }

    /// As ``call(_:_:waitingBriefly:started:answered:)``, for any ``Request``.
    public func call(_ request: Request, waitingBriefly briefly: Duration,
                     started: (Int) -> Void, answered: @escaping @Sendable () -> Void) async throws -> JSONValue {
        try read(await answer(to: request, waitingBriefly: briefly, started: started, answered: answered)) { try $0.value() }
    }

    /// As ``call(_:waitingBriefly:started:answered:)``, the answer handed back as the JSON text it
    /// came as, checked by the parser's rules but not read into a value (``AnswerText``): the
    /// host's forwarder of an operation, whose answer an HTTP response carries as it is.
    public func callForText(_ request: Request, waitingBriefly briefly: Duration,
                            started: (Int) -> Void, answered: @escaping @Sendable () -> Void) async throws -> [UInt8] {
        try read(await answer(to: request, waitingBriefly: briefly, started: started, answered: answered)) { try $0.checkedText() }
    }

    /// Reads an answer's text as `reading` says. Text that is not JSON is the other side's fault,
    /// as a frame that is not JSON is: the connection ends over it (every call waiting fails with
    /// how the other side ended), and this call fails with what was wrong.
    private func read<T>(_ text: AnswerText, _ reading: (AnswerText) throws -> T) throws -> T {
        do { return try reading(text) } catch {
            frames.shutDown()
            throw error
        }
    }

    private func answer(to request: Request, waitingBriefly briefly: Duration,
                        started: (Int) -> Void, answered: @escaping @Sendable () -> Void) async throws -> AnswerText {
        let waiter = ReplyWaiter()
        let lane = callLanes?.take()
        let connection = lane.flatMap { callLanes?.connections[$0] } ?? frames
        let id = send(request, on: connection) { result in
            answered()
            waiter.deliver(result)
        }
        if let id { started(id) }
        if let lane, let callLanes {
            callLanes.endWait(lane, id == nil ? .answered : waitBriefly(on: connection, for: waiter, upTo: briefly, polling: callLanes))
        }
        return try await waiter.value()
    }

    /// Reads the lane on this thread until the call's answer has come, the lane ends, or `briefly`
    /// has passed (give or take one more read's wait); for the first part of that it polls without
    /// sleeping, while `lanes` says calls are quick (``BusyPolling``).
    private func waitBriefly(on lane: FrameConnection, for waiter: ReplyWaiter, upTo briefly: Duration,
                             polling lanes: CallLanes) -> BriefWaitOutcome {
        let start = DispatchTime.now().uptimeNanoseconds
        let end = start + UInt64(max(0, briefly.nanoseconds))
        let window = lanes.pollingWindow()
        let pollUntil = min(end, start + window)
        // A poll pays if the answer came within its window (``PollingPayoff``).
        defer { if window > 0 { lanes.payoff.record(paid: waiter.isAnswered && DispatchTime.now().uptimeNanoseconds <= pollUntil) } }
        while !waiter.isAnswered {
            do {
                if let answer = try lane.bufferedMessage() { dispatch(answer); continue }
            } catch { return .ended }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < end else { return .timedOut }
            // Polling: a read that does not wait. Then asleep in the read itself, for at most the
            // brief wait (``FrameConnection/readWaiting(atMost:)``: the same limit each time, so the
            // socket's timeout is set once, not per call; a wait that began after polling, or a
            // frame that came in parts, may so hold the thread for two such waits).
            let read: FrameConnection.LaneRead
            do {
                read = now < pollUntil ? try lane.readIfAvailable() : try lane.readWaiting(atMost: briefly)
            } catch { return .ended }
            switch read {
            case .read: continue
            case .ended: return .ended
            case .nothing: if now >= pollUntil { return .timedOut }
            }
        }
        return .answered
    }

    /// Asks the other side and waits for its answer.
    public func call(_ method: String, _ params: JSONValue = .null) async throws -> JSONValue {
        let text = try await withCheckedThrowingContinuation { (c: CheckedContinuation<AnswerText, any Error>) in
            send(.method(method, params), on: frames) { c.resume(with: $0) }
        }
        return try read(text) { try $0.value() }
    }

    /// Asks the other side and blocks this thread until it answers: for the few synchronous
    /// SDK members (`HostClock.now()`). The answer arrives on the reader thread; on the child's
    /// event loop, which is that thread, this call reads the socket itself until its answer comes,
    /// handing every other frame on as the loop would (their work runs once this returns).
    public func callBlocking(_ method: String, _ params: JSONValue = .null) throws -> JSONValue {
        let box = Mutex<Result<AnswerText, any Error>?>(nil)
        if let loop, loop.isCurrentThread {
            send(.method(method, params), on: frames) { result in box.withLock { $0 = result } }
            while true {
                if let result = box.withLock({ $0 }) { return try read(result.get()) { try $0.value() } }
                guard let message = try frames.receiveMessage() else { throw FrameError.truncated }
                dispatch(message)
            }
        }
        let done = DispatchSemaphore(value: 0)
        send(.method(method, params), on: frames) { result in
            box.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try read(box.withLock { $0! }.get()) { try $0.value() }
    }

    /// Answers the call numbered `id` with `error` now, if it still waits (its deadline passed);
    /// the other side's answer, if it comes later, is dropped.
    public func fail(call id: Int, with error: any Error) {
        state.withLock { $0.pending.removeValue(forKey: id) }?(.failure(error))
    }

    /// Tells the other side something that needs no answer (a log line).
    public func notify(_ method: String, _ params: JSONValue = .null) {
        Self.send(.call(id: 0, method: method, params: params), on: frames)
    }

    @discardableResult
    private func send(_ request: Request, on connection: FrameConnection,
                      answer: @escaping @Sendable (Result<AnswerText, any Error>) -> Void) -> Int? {
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
            do { try connection.send(request.message(id: Int64(id))) } catch FrameError.closed {
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
            if let reason = error.reason { o["reason"] = .string(reason.rawValue) }
            return .object(o)
        }
        return ["opaque": .string("\(error)")]
    }

    static func decode(_ json: JSONValue) -> any Error {
        if let code = json["code"]?.stringValue {
            return PluginError(PluginError.Code(rawValue: code), json["message"]?.stringValue ?? "", field: json["field"]?.stringValue,
                               reason: json["reason"]?.stringValue.map(PluginError.Code.init(rawValue:)))
        }
        return Opaque(description: json["opaque"]?.stringValue ?? "an error in the plugin process")
    }
}
