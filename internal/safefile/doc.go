// Package safefile writes the files the tool creates without writing through a name someone else
// may have planted beside them (a symbolic or hard link in a shared directory).
//
// Contract:
//   - Create opens a temporary file in the target's directory, created exclusively (O_EXCL) under
//     a random name (".NAME.*.tmp"), so it never opens an existing file or follows a link. Commit
//     flushes it, gives it mode 0644 and renames it onto the target: rename replaces whatever the
//     target name held (a file, or a link, which is replaced, not followed) in one step, so a
//     reader sees the old file or the new one, never a mix. Abort (or Close without Commit)
//     removes the temporary file. A target that is a directory is refused.
//   - WriteFile and Write are Create, the write and Commit in one call.
//   - Same reports whether two paths name one existing file (after links, and whatever their
//     spelling), for commands that must not write over their own input.
//
// A process killed between Create and Commit leaves its temporary file behind (never the target
// half-written); the next Commit to the same target does not depend on it.
package safefile
