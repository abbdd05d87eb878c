// Package apirecord reads and writes the verdicts of
// testdata/apiserver-recorded: built-in objects, each in its own file,
// whose leading comment is what the real kube-apiserver said when the
// object was created with dryRun=All and fieldValidation=Strict
// (integration's TestAPIServerRecorded records them and checks them
// against a live apiserver; internal/crdvalidate's
// TestAPIServerRecordedSuite compares validate's verdicts with them
// offline).
//
// # Format
//
// The comment is the file's first lines that start with "# ": a title,
// then one "key: value" line each for the verdict (valid or invalid), the
// Status reason, every cause as "TYPE FIELD" (sorted) and every field a
// Strict decoding error names as unknown or duplicate, and the message of
// a refusal that names no field at all. The object follows.
// Nothing here touches a file: callers read and write through their own
// door.
package apirecord
