import CLibFuzzer
#if canImport(Glibc)
import Glibc
#endif

/// Hands the process to libFuzzer, which reads its options from the command line and calls the
/// target's `LLVMFuzzerTestOneInput` with each input.
public func runLibFuzzer() -> Never {
    var argc = CommandLine.argc
    var argv = Optional(CommandLine.unsafeArgv)
    exit(LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput))
}
