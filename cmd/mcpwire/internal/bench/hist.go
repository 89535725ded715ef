package bench

import (
	"math"
	"math/bits"
	"time"
)

// A Histogram counts latencies in buckets of bounded relative width:
// values below 256 ns have a bucket each, larger ones fall in one of 128
// buckets per power of two, so that a value read back (a percentile) is
// within 0.4% of the latencies it stands for. The minimum, maximum and sum
// are exact. It has a fixed size (about 35 KB) whatever it counts: each
// worker of a run has its own, merged at the end. Not safe for concurrent
// use.
type Histogram struct {
	counts [histBuckets]uint64
	n      uint64
	sum    float64 // nanoseconds
	min    uint64
	max    uint64
}

const (
	histSubBits = 8                    // 2^8 exact values, then 128 buckets per octave
	histSub     = 1 << histSubBits     // 256
	histHalf    = histSub / 2          // 128
	histOctaves = 40 - histSubBits + 1 // up to 2^40 ns, about 18 minutes
	histBuckets = histSub + histOctaves*histHalf
	histMax     = uint64(1)<<40 - 1 // larger values are counted here
)

// bucketOf returns the bucket of v nanoseconds.
func bucketOf(v uint64) int {
	if v < histSub {
		return int(v)
	}
	if v > histMax {
		v = histMax
	}
	shift := bits.Len64(v) - histSubBits // 1 and up
	return histSub + (shift-1)*histHalf + int(v>>shift) - histHalf
}

// bucketRange returns the smallest and largest values of bucket i.
func bucketRange(i int) (lo, hi uint64) {
	if i < histSub {
		return uint64(i), uint64(i)
	}
	shift := (i-histSub)/histHalf + 1
	m := uint64((i-histSub)%histHalf + histHalf)
	return m << shift, (m+1)<<shift - 1
}

// Record counts one latency.
func (h *Histogram) Record(d time.Duration) {
	v := uint64(max(d, 0))
	h.counts[bucketOf(v)]++
	if h.n == 0 || v < h.min {
		h.min = v
	}
	h.max = max(h.max, v)
	h.n++
	h.sum += float64(v)
}

// Merge adds the counts of o.
func (h *Histogram) Merge(o *Histogram) {
	if o.n == 0 {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.n += o.n
	h.sum += o.sum
}

// Count returns the number of latencies counted.
func (h *Histogram) Count() uint64 { return h.n }

// Min returns the smallest latency, Max the largest, Mean their mean.
func (h *Histogram) Min() time.Duration { return time.Duration(h.min) }

// Max returns the largest latency.
func (h *Histogram) Max() time.Duration { return time.Duration(h.max) }

// Mean returns the mean latency.
func (h *Histogram) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return time.Duration(h.sum / float64(h.n))
}

// Quantile returns the latency under which a fraction q (0 to 1) of the
// latencies fall: the middle of the bucket that holds the q-th, within
// the exact minimum and maximum.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		if seen += c; seen >= rank {
			lo, hi := bucketRange(i)
			v := lo + (hi-lo)/2
			return time.Duration(min(max(v, h.min), h.max))
		}
	}
	return time.Duration(h.max)
}

// CountAtMost returns how many latencies are at most d (to the precision
// of the buckets: a bucket counts when its middle is at most d).
func (h *Histogram) CountAtMost(d time.Duration) uint64 {
	v := uint64(max(d, 0))
	var n uint64
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		lo, hi := bucketRange(i)
		if lo+(hi-lo)/2 > v {
			break
		}
		n += c
	}
	return n
}
