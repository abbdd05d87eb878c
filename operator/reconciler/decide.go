package reconciler

import (
	"time"
)

// This file holds the operator's timing decisions as pure functions of
// their inputs, so table tests cover them without a scheduler or a clock.

// scaleInput is what one autoscaling decision looks at.
type scaleInput struct {
	// Current is the default worker group's replicas as they stand
	// (its spec.worker.replicas), not the count last chosen.
	Current int32
	// Target is the scheduler's adaptive target.
	Target int32
	// Minimum and Maximum bound the result.
	Minimum, Maximum int32
	// LastScale is when the autoscaler last changed the count; zero for
	// never.
	LastScale time.Time
	// Now is the time of the decision.
	Now time.Time
	// CoolDown is how long after a change scale-down waits.
	CoolDown time.Duration
}

// maxScaleDown is the most workers one decision removes from a group of
// current: a quarter of them, rounded down, and at least one. It is the
// pacing of Dask's own controller, which its users tuned their workloads
// to: a group of 4 idles down to 1 in three steps, one per cool-down.
func maxScaleDown(current int32) int32 {
	return max(current/4, 1)
}

// decideScale returns the worker count for in and why. The target, clamped
// to [Minimum, Maximum], applies at once when it asks for more workers.
// Fewer workers come only once CoolDown has passed since the last change,
// and then at most maxScaleDown(Current) fewer, so a target that dips
// between two bursts of work does not retire the workers the next burst
// needs. Bounds beat both: a count outside them is brought inside at once.
func decideScale(in scaleInput) (int32, string) {
	want := clamp(in.Target, in.Minimum, in.Maximum)
	switch {
	case in.Current > in.Maximum:
		return in.Maximum, "above maximum"
	case in.Current < in.Minimum:
		return in.Minimum, "below minimum"
	case want > in.Current:
		return want, "scale up"
	case want == in.Current:
		return in.Current, "at target"
	case !in.LastScale.IsZero() && in.Now.Before(in.LastScale.Add(in.CoolDown)):
		return in.Current, "cool-down"
	default:
		return max(want, in.Current-maxScaleDown(in.Current)), "scale down"
	}
}

// decideWarn reports whether a warning last recorded at last (zero for
// never) is due again at now, at most once per every: a condition that
// lasts (a scheduler away for an hour) warns once per interval, not once
// per poll.
func decideWarn(last, now time.Time, every time.Duration) bool {
	return last.IsZero() || !now.Before(last.Add(every))
}

// decideKopfRelease says, for an object deleted at deletedAt that still
// carries kopf's finalizer at now, whether to remove it, or how long to
// wait first. A running kopf operator removes its finalizer as soon as it
// sees the deletion (it stops the object's timers; Dask's deletion handlers
// are optional), so one still there grace after the deletion means no kopf
// operator handles the object any more: Dask's operator is gone, and
// without the removal the deletion would never finish.
func decideKopfRelease(deletedAt, now time.Time, grace time.Duration) (remove bool, wait time.Duration) {
	if left := deletedAt.Add(grace).Sub(now); left > 0 {
		return false, left
	}
	return true, 0
}

// retireVerdict is what to do with one worker chosen for retirement.
type retireVerdict int

const (
	// retireWait: ask (again) and wait.
	retireWait retireVerdict = iota
	// retireDone: the scheduler no longer lists the worker; delete it.
	retireDone
	// retireForce: the window has passed without the scheduler retiring
	// the worker; delete it anyway and warn.
	retireForce
)

// decideRetire judges one retiring worker. reached says whether the
// scheduler answered; listed whether its answer still names the worker
// (meaningless when it did not answer). A worker the scheduler does not
// know holds nothing it could save, so it goes at once; one it still lists
// waits until since+timeout, then goes without its blessing.
func decideRetire(reached, listed bool, since, now time.Time, timeout time.Duration) retireVerdict {
	switch {
	case reached && !listed:
		return retireDone
	case !now.Before(since.Add(timeout)):
		return retireForce
	default:
		return retireWait
	}
}

// idleInput is what one idle-timeout decision looks at, for schedulers
// without check_idle: two successive task-count polls.
type idleInput struct {
	// Counts is this poll's answer; Previous the last poll's, nil when
	// there was none (the operator started, or the scheduler was away).
	Counts   SchedulerCounts
	Previous *SchedulerCounts
	// IdleSince is the idle start recorded so far; nil for busy.
	IdleSince *time.Time
	// Now is the time of this poll.
	Now time.Time
}

// busy reports whether c shows work in the scheduler: a task processing,
// waiting for its dependencies or for a worker it can run on, or tasks but
// no worker to run them on.
func (c SchedulerCounts) busy() bool {
	return c.Processing > 0 || c.Waiting > 0 || c.Unrunnable > 0 || (c.Workers == 0 && c.DesiredWorkers > 0)
}

// activity is the part of the counts that changes when tasks run: tasks
// that started and finished between two polls change it.
func (c SchedulerCounts) activity() [6]int64 {
	return [6]int64{c.Tasks, c.Memory, c.Released, c.Erred, c.WaitingData, c.Processing}
}

// decideIdleFromCounts returns the new idle start: nil while the scheduler
// is busy; Now when it is idle but was busy or changed since the previous
// poll (or there was none, so nothing says how long it has been idle);
// otherwise the recorded start.
func decideIdleFromCounts(in idleInput) *time.Time {
	switch {
	case in.Counts.busy():
		return nil
	case in.Previous == nil || in.Previous.activity() != in.Counts.activity() || in.IdleSince == nil:
		return &in.Now
	default:
		return in.IdleSince
	}
}

// idleExpired reports whether a scheduler idle since since has been idle
// longer than timeout at now.
func idleExpired(since *time.Time, now time.Time, timeout time.Duration) bool {
	return since != nil && timeout > 0 && now.Sub(*since) > timeout
}
