// Command http serves an MCP server over Streamable HTTP, in both protocol
// eras on one endpoint: clients of 2026-07-28 send stateless requests,
// older ones (2025-03-26 to 2025-11-25) open a session with initialize,
// and the same tools serve both.
//
//	go run ./examples/http                       # http://localhost:3000/mcp
//	go run ./cmd/mcpwire tools --url http://localhost:3000/mcp
//	go run ./cmd/mcpwire call forecast --args '{"city":"Paris"}' --url http://localhost:3000/mcp
//	go run ./examples/elicit -url http://localhost:3000/mcp -tool book
//
// The tools:
//
//   - forecast returns structured content (a Forecast, whose output
//     schema is inferred from the Go type), and sends a log message and
//     progress while it works;
//   - book asks the user for the details of a reservation (elicitation):
//     a request to the client in a session, an input_required round in
//     the stateless era, with one handler for both.
//
// -addr sets the address (127.0.0.1:0 picks a free port); the endpoint's
// URL is printed on stderr. Ctrl-C shuts down gracefully: open
// subscriptions end with a result, sessions close, requests in progress
// finish (within 10 seconds).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// ForecastArgs are the arguments of the forecast tool.
type ForecastArgs struct {
	City string `json:"city" jsonschema:"the city to forecast"`
}

// Forecast is the structured result of the forecast tool.
type Forecast struct {
	City string `json:"city"`
	High int    `json:"high" jsonschema:"the day's high, in degrees Celsius"`
	Low  int    `json:"low" jsonschema:"the night's low, in degrees Celsius"`
	Sky  string `json:"sky"`
}

func forecast(ctx context.Context, req *server.Request, in ForecastArgs) (Forecast, error) {
	if strings.TrimSpace(in.City) == "" {
		return Forecast{}, errors.New("which city?")
	}
	req.Log(ctx, mcp.LevelInfo, "forecast", "looking up "+in.City)
	req.Progress(ctx, 1, 2, "asking the sky")
	n := 0
	for _, r := range strings.ToLower(in.City) {
		n += int(r)
	}
	skies := []string{"sunny", "cloudy", "rainy", "windy"}
	f := Forecast{City: in.City, High: 12 + n%15, Sky: skies[n%len(skies)]}
	f.Low = f.High - 8
	req.Progress(ctx, 2, 2, "done")
	return f, nil
}

// bookingForm is the form the book tool asks the user to fill in.
const bookingForm = `{"type":"object","properties":{
 "name":{"type":"string","title":"Name","description":"the name of the reservation"},
 "guests":{"type":"integer","title":"Guests","minimum":1,"maximum":12,"default":2},
 "time":{"type":"string","title":"Time","enum":["19:00","20:00","21:00"],"default":"20:00"},
 "terrace":{"type":"boolean","title":"On the terrace","default":false}},
 "required":["name","guests","time"]}`

// BookArgs are the arguments of the book tool.
type BookArgs struct {
	Restaurant string `json:"restaurant" jsonschema:"where to book"`
}

func book(ctx context.Context, req *server.Request, in BookArgs) (string, error) {
	res, err := req.Elicit(ctx, &mcp.ElicitParams{
		Message:         "Booking a table at " + in.Restaurant + ": who, how many, when?",
		RequestedSchema: []byte(bookingForm),
	})
	if err != nil {
		return "", err
	}
	if res.Action != mcp.ElicitAccept {
		return "No table booked: the user chose to " + string(res.Action) + ".", nil
	}
	c := res.Content
	where := "inside"
	if terrace, _ := c["terrace"].(bool); terrace {
		where = "on the terrace"
	}
	return fmt.Sprintf("Booked a table for %v at %s, %v, %s, in the name of %v.", c["guests"], in.Restaurant, c["time"], where, c["name"]), nil
}

func newServer() (*server.Server, error) {
	srv := server.New(mcp.Implementation{Name: "http-example", Version: "1.0.0"}, &server.Options{
		Instructions: "Forecasts the weather and books restaurant tables.",
	})
	return srv, errors.Join(
		server.AddTool(srv, &mcp.Tool{Name: "forecast", Description: "Tomorrow's weather in a city"}, forecast),
		server.AddTool(srv, &mcp.Tool{Name: "book", Description: "Books a table, asking the user for the details"}, book),
	)
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("http: ")
	addr := flag.String("addr", "localhost:3000", "address to listen on")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr); err != nil {
		log.Fatal(err)
	}
}

// run serves until ctx ends, then shuts down gracefully.
func run(ctx context.Context, addr string) error {
	srv, err := newServer()
	if err != nil {
		return err
	}
	h := streamable.NewHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	log.Printf("serving MCP at http://%s/mcp", ln.Addr())

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Print("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv.Close()      // ends subscriptions/listen streams with a result
	h.Shutdown(sctx) // ends legacy sessions and their streams
	if err := hs.Shutdown(sctx); err != nil {
		return err
	}
	return nil
}
