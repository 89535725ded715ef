package redis_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/store"
	"github.com/mcpwire/mcpwire/store/redis"
	"github.com/mcpwire/mcpwire/store/redis/redistest"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// The scale-out benchmark: tools/call through one instance without a
// store (everything in memory, the default), one instance on Redis, and
// three instances on Redis behind a round-robin proxy, in both eras, from
// 8 clients at once. It reports calls/s and the 99th percentile latency.
//
//	go test -run '^$' -bench 'ScaleOut|IdleSessionBytes' -benchmem ./store/redis

// benchCluster serves n instances (on st, or without a store when st is
// nil) and returns the URL clients use: the instance's own for one, a
// round-robin proxy's for more.
func benchCluster(b *testing.B, st store.Store, n int) string {
	var urls []*url.URL
	for range n {
		srv := server.New(mcp.Implementation{Name: "bench", Version: "1"}, &server.Options{Store: st})
		server.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, r *server.Request, in struct {
			Text string `json:"text"`
		}) (string, error) {
			return in.Text, nil
		})
		h := streamable.NewHandler(srv, nil)
		ts := httptest.NewServer(h)
		b.Cleanup(func() {
			srv.Close()
			h.Close()
			ts.CloseClientConnections()
			ts.Close()
		})
		u, _ := url.Parse(ts.URL)
		urls = append(urls, u)
	}
	if n == 1 {
		return urls[0].String()
	}
	var next atomic.Uint64
	tr := &http.Transport{MaxIdleConnsPerHost: 256}
	b.Cleanup(tr.CloseIdleConnections)
	p := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(urls[(next.Add(1)-1)%uint64(len(urls))])
			r.Out.Host = r.In.Host
		},
		FlushInterval: -1,
		Transport:     tr,
	}
	ts := httptest.NewServer(p)
	b.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts.URL
}

func BenchmarkScaleOut(b *testing.B) {
	const clients = 8
	for _, era := range []struct {
		name    string
		version mcp.Version
	}{{"legacy", mcp.Version20251125}, {"modern", ""}} {
		for _, c := range []struct {
			name      string
			redis     bool
			instances int
		}{
			{"store=memory/instances=1", false, 1},
			{"store=redis/instances=1", true, 1},
			{"store=redis/instances=3", true, 3},
		} {
			b.Run("era="+era.name+"/"+c.name, func(b *testing.B) {
				var st store.Store
				var trips atomic.Int64
				var admin *goredis.Client
				if c.redis {
					rs := redistest.Shared(b)
					r, err := redis.New(&redis.Options{URL: rs.NewDB(), Prefix: "bench" + strconv.Itoa(int(prefixes.Add(1))) + ":"})
					if err != nil {
						b.Fatal(err)
					}
					b.Cleanup(func() { r.Close() })
					r.CountRoundTrips(&trips)
					st = r
					admin = adminClient(b, rs.URL(0))
				}
				u := benchCluster(b, st, c.instances)
				ctx := context.Background()
				tr := &http.Transport{MaxIdleConnsPerHost: 64}
				b.Cleanup(tr.CloseIdleConnections)
				var sessions []*client.Session
				for range clients {
					cl := client.New(mcp.Implementation{Name: "bench", Version: "1"}, &client.Options{Version: era.version})
					s, err := cl.Connect(ctx, streamable.NewTransport(u, &streamable.ClientOptions{HTTPClient: &http.Client{Transport: tr}, DisableStandaloneStream: true}))
					if err != nil {
						b.Fatal(err)
					}
					b.Cleanup(func() { s.Close() })
					sessions = append(sessions, s)
				}
				params := &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"text":"hello"}`)}
				lat := make([][]time.Duration, clients)
				var left atomic.Int64
				left.Store(int64(b.N))
				var wg sync.WaitGroup
				var before map[string]int64
				if admin != nil {
					before = commandStats(b, admin)
				}
				trips.Store(0)
				b.ResetTimer()
				start := time.Now()
				for i, s := range sessions {
					wg.Go(func() {
						for left.Add(-1) >= 0 {
							t0 := time.Now()
							if _, err := s.CallTool(ctx, params); err != nil {
								b.Error(err)
								return
							}
							lat[i] = append(lat[i], time.Since(t0))
						}
					})
				}
				wg.Wait()
				elapsed := time.Since(start)
				b.StopTimer()
				if admin != nil {
					reportCommands(b, before, commandStats(b, admin), trips.Load())
				}
				all := slices.Concat(lat...)
				slices.Sort(all)
				if len(all) > 0 {
					b.ReportMetric(float64(len(all))/elapsed.Seconds(), "calls/s")
					b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
				}
			})
		}
	}
}

// BenchmarkIdleSessionBytes reports the memory Redis holds per idle
// legacy session (initialized, one log level set): used_memory before
// and after opening them (B/session), and how it divides between the
// session's record (its hash, B/record) and the events of its streams,
// kept for resumption (B/events), as MEMORY USAGE counts them.
func BenchmarkIdleSessionBytes(b *testing.B) {
	rs := redistest.Shared(b)
	const n = 1000
	for range b.N {
		b.StopTimer()
		db := rs.NewDB()
		st, err := redis.New(&redis.Options{URL: db})
		if err != nil {
			b.Fatal(err)
		}
		u := benchCluster(b, st, 1)
		ctx := context.Background()
		before := usedMemory(b, db)
		tr := &http.Transport{}
		sessions := make([]*client.Session, 0, n)
		b.StartTimer()
		for range n {
			cl := client.New(mcp.Implementation{Name: "bench", Version: "1"}, &client.Options{Version: mcp.Version20251125})
			s, err := cl.Connect(ctx, streamable.NewTransport(u, &streamable.ClientOptions{HTTPClient: &http.Client{Transport: tr}, DisableStandaloneStream: true}))
			if err != nil {
				b.Fatal(err)
			}
			sessions = append(sessions, s)
			if err := s.SetLogLevel(ctx, mcp.LevelInfo); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		after := usedMemory(b, db)
		b.ReportMetric(float64(after-before)/n, "B/session")
		b.ReportMetric(float64(keysMemory(b, db, redis.DefaultPrefix+"s:{*}"))/n, "B/record")
		b.ReportMetric(float64(keysMemory(b, db, redis.DefaultPrefix+"e:{*}"))/n, "B/events")
		for _, s := range sessions { // each DELETEs its session
			s.Close()
		}
		tr.CloseIdleConnections()
		st.Close()
	}
}

// adminClient returns a client of its own to the Redis at url, for INFO.
func adminClient(b *testing.B, url string) *goredis.Client {
	o, err := goredis.ParseURL(url)
	if err != nil {
		b.Fatal(err)
	}
	c := goredis.NewClient(o)
	b.Cleanup(func() { c.Close() })
	return c
}

// commandStats reads the calls of each command from INFO commandstats
// (the commands scripts run are counted too).
func commandStats(b *testing.B, c *goredis.Client) map[string]int64 {
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	stats := make(map[string]int64)
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, ",")
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		stats[strings.TrimPrefix(name, "cmdstat_")] = v
	}
	return stats
}

// reportCommands reports the Redis commands (INFO commandstats, less the
// INFO that read them) and the store's round trips per call, and logs
// the commands per call one by one.
func reportCommands(b *testing.B, before, after map[string]int64, trips int64) {
	var total int64
	var each []string
	for name, n := range after {
		d := n - before[name]
		if name == "info" {
			d--
		}
		if d <= 0 {
			continue
		}
		total += d
		each = append(each, fmt.Sprintf("%s %.2f", name, float64(d)/float64(b.N)))
	}
	slices.Sort(each)
	b.ReportMetric(float64(total)/float64(b.N), "cmds/call")
	b.ReportMetric(float64(trips)/float64(b.N), "trips/call")
	b.Logf("N=%d, Redis commands per call: %s", b.N, strings.Join(each, ", "))
}

// keysMemory sums MEMORY USAGE of the keys that match pattern.
func keysMemory(b *testing.B, url, pattern string) int64 {
	o, err := goredis.ParseURL(url)
	if err != nil {
		b.Fatal(err)
	}
	c := goredis.NewClient(o)
	defer c.Close()
	ctx := context.Background()
	var sum int64
	it := c.Scan(ctx, 0, pattern, 1000).Iterator()
	for it.Next(ctx) {
		n, err := c.MemoryUsage(ctx, it.Val(), 0).Result()
		if err != nil {
			b.Fatal(err)
		}
		sum += n
	}
	if err := it.Err(); err != nil {
		b.Fatal(err)
	}
	return sum
}

// usedMemory reads used_memory from INFO memory, on a connection of its
// own (the store does not expose Redis's INFO).
func usedMemory(b *testing.B, url string) int64 {
	o, err := goredis.ParseURL(url)
	if err != nil {
		b.Fatal(err)
	}
	c := goredis.NewClient(o)
	defer c.Close()
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatalf("no used_memory in %q", info)
	return 0
}
