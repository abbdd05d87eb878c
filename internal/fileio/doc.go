// Package fileio is the tool's one door for files. Every input (templates,
// $ref targets, patches, configuration, outputs read back, validate's
// inputs, standard input) is read through a Reader, and every output is
// written or removed through a Writer. Nothing else in the module opens,
// creates, renames or removes a file; a test scans for call sites that
// would.
//
// # Reading
//
// A Reader opens first and checks the opened handle: it must be a regular
// file (a directory, FIFO, device or socket is an error saying which), and
// at most Limit bytes are read, counted while reading (a stat size is not
// trusted: /proc files and devices report 0). Paths below the root are
// opened through an os.Root, so the file actually opened is confined to the
// root whatever symlinks the path goes through; there is no check-then-open
// race. AllowOutside relaxes the confinement only, never the type and size
// checks.
//
// # Writing
//
// A Writer writes regular files only: never through a symlink, never over
// a FIFO, device, socket or directory, never over a file that is an input
// of the same run (same device and inode), and never outside the root
// (after resolving symlinks) unless AllowOutside. An existing file is
// replaced or removed only when Owned accepts its first line (the exact
// generated header), unless Force. Content goes to a temporary file beside
// the target, named so that IsTemp recognises exactly these names, and is
// renamed over the target only on Commit; Stage-all-then-Commit-all gives
// a multi-file update that writes nothing when any file fails to stage.
// WriteFile compares what it is given with the existing file as it comes
// and writes nothing when they are the same bytes (the temporary file is
// started at the first difference). Temporary files are removed on SIGINT
// and SIGTERM (HandleSignals, installed with the first of them), and
// leftovers of a killed run by the next Writer that stages into the same
// directory.
package fileio
