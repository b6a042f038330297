// tessera-plugin-runner: the child process of the process tier (docs/isolation.md). The host
// starts it; it loads one plugin library and answers the host over the socket on fd 3.
import TesseraIsolation

await PluginRunner.main(CommandLine.arguments)
