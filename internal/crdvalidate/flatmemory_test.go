package crdvalidate

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// workerGroups is a stream of n small DaskWorkerGroups (each about 300
// bytes of YAML), made as it is read: the input holds no memory of its
// own, so what a run holds is what judging holds.
type workerGroups struct {
	n, next int
	buf     bytes.Buffer
}

func (w *workerGroups) Read(p []byte) (int, error) {
	for w.buf.Len() < len(p) && w.next < w.n {
		fmt.Fprintf(&w.buf, `---
apiVersion: kubernetes.dask.org/v1
kind: DaskWorkerGroup
metadata:
  name: wg-%d
  labels: {app: dask, index: "%d"}
spec:
  cluster: example
  worker:
    replicas: 2
    spec:
      containers:
        - name: worker
          image: ghcr.io/dask/dask:2024.12.1
          resources: {requests: {cpu: 2, memory: 4Gi}}
`, w.next, w.next)
		w.next++
	}
	if w.buf.Len() == 0 {
		return 0, io.EOF
	}
	return w.buf.Read(p)
}

// judgeWorkerGroups judges a stream of n workerGroups, all valid.
func judgeWorkerGroups(tb testing.TB, crds []Input, n int) {
	tb.Helper()
	in := Input{Name: "stream.yaml", Open: func() (io.ReadCloser, error) { return io.NopCloser(&workerGroups{n: n}), nil }}
	results, _, err := Files(tb.Context(), []Input{in}, Options{CRDs: crds})
	if err != nil {
		tb.Fatal(err)
	}
	if len(results[0].Problems) > 0 {
		tb.Fatalf("problems: %v", results[0].Problems[:min(3, len(results[0].Problems))])
	}
}

// peakHeap runs f and returns the largest live heap seen while it ran:
// what a collection found reachable (sampled every millisecond, and at
// its end), with the collector run whenever the heap grows a fifth past
// what the last one left, so that there are many such measures.
func peakHeap(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var peak uint64
	read := func() {
		metrics.Read(sample)
		peak = max(peak, sample[0].Value.Uint64())
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				read()
			}
		}
	})
	f()
	close(stop)
	wg.Wait()
	read()
	return peak
}

// TestFlatMemory: judging a stream of custom resources holds a few of
// them at a time, not the stream: the peak heap for 4N objects is not
// about four times what N take beyond the CRDs: the live heap grows by
// less than 1.5 KiB per object (keeping each decoded document, as
// whole-file decoding did, adds some 3.3 KiB per object of this stream).
// Each size's peak is the least of three runs.
func TestFlatMemory(t *testing.T) {
	crds := corpusCRDs(t)
	const n = 1000
	run := func(objects int) uint64 {
		return peakHeap(func() { judgeWorkerGroups(t, crds, objects) })
	}
	run(n / 20) // warm: what is loaded once (bundles, CEL environments)
	// The least of three runs each: a collection that comes late (other
	// packages' tests share the cores) only ever raises a peak.
	least := func(objects int) uint64 { return min(run(objects), run(objects), run(objects)) }
	small, large := least(n), least(4*n)
	perObject := (float64(large) - float64(small)) / (3 * n)
	t.Logf("peak heap: %d objects %.1f MiB, %d objects %.1f MiB: %.0f bytes per object more", n, float64(small)/(1<<20), 4*n, float64(large)/(1<<20), perObject)
	if perObject > 1536 {
		t.Errorf("the peak heap grows by %.0f bytes per object judged (%d objects: %.1f MiB, %d: %.1f MiB): objects are kept after they are judged", perObject, n, float64(small)/(1<<20), 4*n, float64(large)/(1<<20))
	}
}
