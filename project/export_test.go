package project

// Twins exposes twins to the tests of package project_test (which may
// import the apiserver's validation through internal/crdvalidate; this
// package may not).
var Twins = twins
