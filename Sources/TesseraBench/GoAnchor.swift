import Foundation

/// The Go anchors of the process tier's echo (`tessera-bench isolation`): the same 191-byte input
/// as JSON to a child process over a Unix socket pair and back, in Go, in the same run.
///
/// - `direct`: length-prefixed frames, the caller writes and reads its answer on its own goroutine,
///   the child answers on one; each side decodes the whole message into a map and encodes its
///   answer. The work of the tier's echo (a JSON envelope each way, the input parsed and written
///   again), in a language whose runtime was built for it: the floor the tier is held to.
/// - `net/rpc`: Go's own JSON-RPC (`net/rpc/jsonrpc`), as a Go program would call a plugin
///   process: a reader goroutine hands each answer to the caller, the server answers on a goroutine
///   per call.
///
/// Built here with the machine's `go` (Debian: `golang-go`, `scripts/setup.sh bench`), standard
/// library only, offline. Built once, and run as often as a benchmark needs: in turns with what it
/// anchors, so that a loaded minute falls on both (``isolationBenchmark``).
struct GoAnchor {
    let program: String

    /// Builds the program in `scratch`; `nil` when there is no `go` on the PATH.
    static func build(scratch: String) throws -> GoAnchor? {
        guard let go = executableOnPath("go") else { return nil }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let source = scratch + "/anchor.go", program = scratch + "/go-anchor"
        try Data(goAnchorSource.utf8).write(to: URL(fileURLWithPath: source))
        // Its own caches in the scratch folder: the bench writes nothing in the person's home.
        var environment = ProcessInfo.processInfo.environment
        environment["GOCACHE"] = scratch + "/cache"
        environment["GOPATH"] = scratch + "/gopath"
        try runTool(go, ["build", "-o", program, source], environment: environment)
        return GoAnchor(program: program)
    }

    /// The nanoseconds of each of `count` round trips in `mode` (`direct` or `rpc`), in a new pair
    /// of processes (their start is not timed).
    func roundTrips(_ mode: String, _ count: Int) throws -> [Double] {
        let output = try runTool(program, [mode, String(count), echoInputJSON])
        return output.split(separator: "\n").compactMap { Double($0) }
    }
}

/// The first `name` in the PATH's folders that can be run.
func executableOnPath(_ name: String) -> String? {
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Prints the nanoseconds of each round trip, one per line.
private let goAnchorSource = #"""
// The process tier's Go anchors: the echo's JSON to a child process over a Unix socket pair and
// back, printing the nanoseconds of each round trip, one per line.
//
//   direct: a 4-byte length, then the JSON; the caller writes and reads the answer on its own
//           goroutine, the child reads and answers on one; each side decodes the whole message
//           into a map and encodes its answer (the floor of a JSON round trip in Go);
//   rpc:    Go's own JSON-RPC (net/rpc/jsonrpc): the client's reader goroutine hands each answer to
//           the caller, the server answers each call on a goroutine of its own.
//
// Usage: anchor direct|rpc COUNT INPUT-JSON
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/rpc"
	"net/rpc/jsonrpc"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

type Echo struct{}

func (Echo) Echo(input map[string]interface{}, output *map[string]interface{}) error {
	*output = input
	return nil
}

type call struct {
	Call   int64                  `json:"call"`
	Method string                 `json:"method"`
	Params map[string]interface{} `json:"params"`
}

type reply struct {
	Reply  int64                  `json:"reply"`
	Result map[string]interface{} `json:"result"`
}

func writeFrame(w *bufio.Writer, value interface{}) {
	body, err := json.Marshal(value)
	if err != nil {
		os.Exit(1)
	}
	var length [4]byte
	binary.BigEndian.PutUint32(length[:], uint32(len(body)))
	w.Write(length[:])
	w.Write(body)
	if w.Flush() != nil {
		os.Exit(0)
	}
}

func readFrame(r *bufio.Reader, into interface{}) bool {
	var length [4]byte
	if _, err := io.ReadFull(r, length[:]); err != nil {
		return false
	}
	body := make([]byte, binary.BigEndian.Uint32(length[:]))
	if _, err := io.ReadFull(r, body); err != nil {
		return false
	}
	return json.Unmarshal(body, into) == nil
}

func serve(mode string, file *os.File) {
	if mode == "rpc" {
		conn, err := net.FileConn(file)
		if err != nil {
			os.Exit(1)
		}
		server := rpc.NewServer()
		server.Register(Echo{})
		server.ServeCodec(jsonrpc.NewServerCodec(conn))
		return
	}
	r, w := bufio.NewReader(file), bufio.NewWriter(file)
	for {
		var c call
		if !readFrame(r, &c) {
			return
		}
		writeFrame(w, reply{Reply: c.Call, Result: c.Params})
	}
}

func main() {
	mode := os.Args[1]
	if len(os.Args) > 2 && os.Args[2] == "child" {
		serve(mode, os.NewFile(3, "socket"))
		return
	}
	count, _ := strconv.Atoi(os.Args[2])
	var input map[string]interface{}
	if json.Unmarshal([]byte(os.Args[3]), &input) != nil {
		os.Exit(1)
	}
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		os.Exit(1)
	}
	self, _ := os.Executable()
	child := exec.Command(self, mode, "child")
	child.ExtraFiles = []*os.File{os.NewFile(uintptr(pair[1]), "child")}
	child.Stderr = os.Stderr
	if child.Start() != nil {
		os.Exit(1)
	}
	syscall.Close(pair[1])
	file := os.NewFile(uintptr(pair[0]), "parent")
	samples := make([]int64, count)
	if mode == "rpc" {
		conn, err := net.FileConn(file)
		if err != nil {
			os.Exit(1)
		}
		client := jsonrpc.NewClient(conn)
		for i := range samples {
			start := time.Now()
			var output map[string]interface{}
			if client.Call("Echo.Echo", input, &output) != nil || len(output) != len(input) {
				os.Exit(1)
			}
			samples[i] = time.Since(start).Nanoseconds()
		}
		client.Close()
		// FileConn took a copy of the descriptor: the child sees the end only once this one is
		// closed too (left to the garbage collector, a short run waited for the child forever).
		file.Close()
	} else {
		r, w := bufio.NewReader(file), bufio.NewWriter(file)
		for i := range samples {
			start := time.Now()
			writeFrame(w, call{Call: int64(i + 1), Method: "echo", Params: input})
			var answer reply
			if !readFrame(r, &answer) || answer.Reply != int64(i+1) || len(answer.Result) != len(input) {
				os.Exit(1)
			}
			samples[i] = time.Since(start).Nanoseconds()
		}
		file.Close()
	}
	child.Wait()
	out := bufio.NewWriter(os.Stdout)
	for _, s := range samples {
		fmt.Fprintln(out, s)
	}
	out.Flush()
}
"""#
