// Package fileio is the tool's one door for files. Every input (templates,
// $ref targets, patches, configuration, outputs read back, validate's
// inputs, standard input) is read through a Reader, and every output is
// written or removed through a Writer. Nothing else in the module opens,
// creates, renames or removes a file; a test scans for call sites that
// would.
//
// # Who is trusted
//
// The invoking user's command line and environment are trusted; repository
// content (templates, $ref targets, patches, configuration, existing
// outputs, names found by globs) is not: a pull request controls it,
// symlinks included. So a path the user typed (an -o or DST, diff's and
// validate's files, -j, --config, SRC) is read and written wherever it
// points (ReadExplicit, WriteExplicit): a temporary directory, another
// checkout, /dev/stdout, a pipe, a FIFO. Streams are written in place and
// never replaced. What lies inside a git work tree is still opened through
// that tree, so no symbolic link placed there leads out: every root of a
// Reader or Writer (a project's directory, a typed path's work tree) is
// opened through the work tree holding it (openRoot); the type, size and
// same-run-input checks apply to every path. Everything the repository
// names is confined to the root (ReadFile, WriteFile, Stage), and
// AllowOutside relaxes that confinement for those paths only.
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
// generated header) and, when set, Verify accepts its content (its seal:
// the SHA-256 of every byte after the first line, see seal.go, which
// hashes, verifies and patches seals for every caller); replaced also
// when it is empty or Replaces accepts it (a CRD of the name being
// written, an unsealed output whose body is what is written now), or with
// Force. Content goes to a temporary file beside
// the target, named so that IsTemp recognises exactly these names, and is
// renamed over the target only on Commit; Stage-all-then-Commit-all (WriteAll) gives
// a multi-file update that writes nothing when any file fails to stage.
// WriteFile compares what it is given with the existing file as it comes
// and writes nothing when they are the same bytes (the temporary file is
// started at the first difference). Temporary files are removed on SIGINT
// and SIGTERM (HandleSignals, installed with the first of them), and
// leftovers of a killed run by the next Writer that stages into the same
// directory. Aside moves a file to remove to such a name before any
// rename, so that a removal that would fail fails first, and CommitAll
// removes it last.
//
// # Locking
//
// LockDir locks a project's directory (flock) for a run: two builds of
// one project run one after the other, the second saying that it waits;
// the lock goes with the process.
package fileio
