package project

// Twins exposes twins to the tests of package project_test (which may
// import the apiserver's validation through internal/crdvalidate; this
// package may not).
var Twins = twins

// IdentityTwins and Skeleton expose identityTwins and skeleton the same way.
var (
	IdentityTwins = identityTwins
	Skeleton      = skeleton
)

// Peak is the most outputs the plan had rendered at once.
func (pl *Plan) Peak() int { return pl.peak }
