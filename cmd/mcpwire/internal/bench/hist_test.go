package bench

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestBucketsCoverEveryValue(t *testing.T) {
	prevHi := uint64(0)
	for i := range histBuckets {
		lo, hi := bucketRange(i)
		if i > 0 && lo != prevHi+1 {
			t.Fatalf("bucket %d starts at %d, the one before ends at %d", i, lo, prevHi)
		}
		if lo >= histSub && float64(hi-lo+1)/float64(lo) > 1.0/128+1e-12 {
			t.Fatalf("bucket %d [%d, %d] is wider than 1/128 of its values", i, lo, hi)
		}
		for _, v := range []uint64{lo, hi, lo + (hi-lo)/2} {
			if v <= histMax && bucketOf(v) != i {
				t.Fatalf("bucketOf(%d) = %d, want %d", v, bucketOf(v), i)
			}
		}
		prevHi = hi
		if hi >= histMax {
			break
		}
	}
	if got := bucketOf(math.MaxUint64); got != bucketOf(histMax) {
		t.Errorf("a value beyond the range goes to bucket %d, not the last (%d)", got, bucketOf(histMax))
	}
}

func TestQuantilesAreWithinHalfAPercent(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	var h, a, b Histogram
	var all []time.Duration
	for i := range 100000 {
		// Latencies from 10µs to 1s, spread over the decades.
		d := time.Duration(math.Exp(r.Float64()*math.Log(1e5)) * 1e4)
		all = append(all, d)
		h.Record(d)
		if i%2 == 0 {
			a.Record(d)
		} else {
			b.Record(d)
		}
	}
	a.Merge(&b)
	if a != h {
		t.Error("merging two halves differs from recording all")
	}
	slices.Sort(all)
	for _, q := range []float64{0, 0.01, 0.5, 0.9, 0.99, 0.999, 1} {
		want := all[max(int(math.Ceil(q*float64(len(all))))-1, 0)]
		got := h.Quantile(q)
		if rel := math.Abs(float64(got-want)) / float64(want); rel > 0.004 {
			t.Errorf("Quantile(%v) = %v, want %v (off by %.2f%%)", q, got, want, rel*100)
		}
	}
	if h.Min() != all[0] || h.Max() != all[len(all)-1] || h.Count() != uint64(len(all)) {
		t.Errorf("min %v max %v count %d, want %v %v %d", h.Min(), h.Max(), h.Count(), all[0], all[len(all)-1], len(all))
	}
}

func TestHistogramRows(t *testing.T) {
	var h Histogram
	for _, d := range []time.Duration{90 * time.Microsecond, 150 * time.Microsecond, 400 * time.Microsecond, 400 * time.Microsecond, 3 * time.Millisecond} {
		h.Record(d)
	}
	rows := histogramRows(&h)
	var got []string
	var total uint64
	for _, r := range rows {
		got = append(got, formatMS(r.le))
		total += r.count
	}
	want := []string{"0.100 ms", "0.200 ms", "0.500 ms", "1.00 ms", "2.00 ms", "5.00 ms"}
	if !slices.Equal(got, want) || total != 5 || rows[2].count != 2 {
		t.Errorf("rows %v (%v), want bounds %v and 5 latencies, 2 in the third", got, rows, want)
	}
	// A wide spread falls back to powers of ten.
	h.Record(20 * time.Second)
	if rows := histogramRows(&h); len(rows) > maxHistRows || formatMS(rows[len(rows)-1].le) != "100000 ms" {
		t.Errorf("wide spread: %d rows, last %v", len(rows), rows[len(rows)-1])
	}
}
