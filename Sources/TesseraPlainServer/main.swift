import Glibc
import TesseraBenchAnchor

// tessera-plain-server: the bare Hummingbird server `tessera-bench memory` measures beside
// `tessera serve`. Prints the line the benchmark waits for, then serves until killed.
let plain = try await PlainServer.start()
print("plain server at http://127.0.0.1:\(plain.port)/noop")
fflush(nil)  // stdout is a pipe, so fully buffered: the benchmark waits for this line
while true { try await Task.sleep(for: .seconds(3600)) }
