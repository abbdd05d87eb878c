// Package docread reads YAML and JSON documents into plain values
// (map[string]any, []any, string, bool, json.Number, nil) with the source
// position of every value: the one reader of templates (package resolver)
// and of every other file the tool reads (outputs read back, diff's,
// validate's and export's inputs, the configuration). Its work is linear
// in what it reads, and what documents expand to (YAML aliases and merges
// included) is charged to a Budget. It holds what reading and compiling
// share: Position, Error, ErrorList, Diagnostic, Size, Cost and Budget.
//
//	load.go          the YAML reader (yaml.v3 nodes into values), Doc and ParseWithin
//	jsondoc.go       the strict JSON reader (jsontext tokens)
//	decode.go        Decode and DecodeDocuments for callers outside the compiler
//	decodereader.go  DecodeReader: a stream one document at a time
//	list.go          ListItems: the objects of a kind: List
//	errors.go        Position, Error, ErrorList, Diagnostic, ErrInput and ErrBudget
//	budget.go        Size, Cost and Budget: what a read or a compile builds, counted as compact JSON
package docread
