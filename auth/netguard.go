package auth

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrBlockedAddress reports a connection refused by the SSRF guard: the
// address is private, loopback, link-local or otherwise not public.
var ErrBlockedAddress = errors.New("auth: address blocked (not a public address)")

// nonPublic lists ranges that are not public unicast addresses beyond
// what netip.Addr's predicates catch.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("100::/64"),        // discard
}

var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// isPublicAddr reports whether ip is a public unicast address: not
// loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local
// (169.254/16, fe80::/10), multicast, unspecified or reserved. IPv4
// addresses embedded in IPv6 (mapped, NAT64) are judged as IPv4.
func isPublicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.Is6() && nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() ||
		ip.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// guardControl is a net.Dialer Control function refusing non-public
// addresses. It runs after name resolution, on the address actually
// dialled, so DNS rebinding cannot slip a private address past it.
func guardControl(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrBlockedAddress, address)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !isPublicAddr(ip) {
		return fmt.Errorf("%w: %s", ErrBlockedAddress, address)
	}
	return nil
}

// newAuthHTTPClient returns the client used for discovery and for the
// authorization server: bounded connection, TLS and header times, at
// most three redirects for GET (each hop re-checked by checkURL), none
// for other methods, and with blockPrivate the SSRF guard on every dial
// (proxies are then not used, so that the guard sees the real target).
func newAuthHTTPClient(timeout time.Duration, blockPrivate bool, checkURL func(string) error) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           16,
		IdleConnTimeout:        30 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  timeout,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	if blockPrivate {
		dialer.Control = guardControl
		tr.Proxy = nil
	}
	return &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if m := via[0].Method; m != http.MethodGet && m != http.MethodHead {
				return http.ErrUseLastResponse
			}
			if len(via) >= 3 {
				return errors.New("auth: too many redirects")
			}
			return checkURL(req.URL.String())
		},
	}
}
