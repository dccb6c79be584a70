// Command backfill builds temporal knowledge graphs from history. Its commands, flags and exit
// codes are a stable contract: docs/reference/commands.md explains them, and docs/cli/ and the
// synopsis of that page are generated from the command definitions (make cli-docs; a test fails
// on drift).
//
// The command tree is github.com/spf13/cobra (cli.go), the Go ecosystem's standard for
// multi-command CLIs (restic, rclone, kubectl and gh use it): per-command help with every flag
// and examples, --version, shell completion and "did you mean" for commands come with it, and its
// flag set is pflag (GNU-style --flag VALUE, flags before or after the arguments). Each command's
// file holds its cobra definition (newXCmd: usage, help text, flags into an options struct) and
// its logic (the options' run method, which returns an exit code); the cobra layer only parses.
//
// Exit codes: 0 done, 1 failed, 2 usage error (cobra's own parse errors, a flag value a command
// rejects, a --set that cannot apply, an invalid BACKFILL_LOG_LEVEL), 3 finished with
// quarantined input or a budget stop, 130 interrupted by SIGINT, 143 by SIGTERM. Errors go to
// stderr once, as "backfill: …" (usage errors as "backfill CMD: …" with a pointer to its
// --help). run drains on the first SIGINT/SIGTERM and aborts on the second (drain); its watch
// starts only once its arguments are checked, so no other ending reports an interrupt. Other
// commands stop at the first signal.
package main
