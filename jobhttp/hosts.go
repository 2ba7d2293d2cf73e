package jobhttp

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// loopbackHosts are the names a Handler answers for when WithHosts gave
// none: a server reached only from its own machine.
var loopbackHosts = []string{"localhost", "127.0.0.1", "[::1]"}

// A hostSet is the set of Host header values a Handler answers for: names
// allowed on any port, and host:port pairs allowed on that port alone.
type hostSet struct {
	anyPort map[string]bool
	exact   map[string]bool // "host:port", the host normalised
}

// newHostSet parses the names WithHosts gave; an empty list is the loopback names.
func newHostSet(list []string) (hostSet, error) {
	if len(list) == 0 {
		list = loopbackHosts
	}
	s := hostSet{anyPort: map[string]bool{}, exact: map[string]bool{}}
	for _, entry := range list {
		host, port, ok := splitHost(entry)
		if !ok || strings.ContainsAny(entry, "/@?#* ") {
			return hostSet{}, fmt.Errorf("jobhttp: WithHosts: %q is not a host name or host:port", entry)
		}
		if port == "" {
			s.anyPort[host] = true
		} else {
			s.exact[net.JoinHostPort(host, port)] = true
		}
	}
	return s, nil
}

// allows reports whether a request's Host header names this server.
func (s hostSet) allows(hostHeader string) bool {
	host, port, ok := splitHost(hostHeader)
	if !ok {
		return false
	}
	return s.anyPort[host] || (port != "" && s.exact[net.JoinHostPort(host, port)])
}

// splitHost splits a Host header value (or a WithHosts entry) into its
// normalised host — lower case, without a trailing dot, an IPv6 address
// without brackets in its canonical form — and its port, which may be empty.
// It refuses an empty host and a port that is not a number. A bare IPv6
// address (no brackets, so no port) is read as a host.
func splitHost(v string) (host, port string, ok bool) {
	host = v
	switch colons := strings.Count(v, ":"); {
	case strings.HasPrefix(v, "["):
		end := strings.IndexByte(v, ']')
		if end < 0 {
			return "", "", false
		}
		host, rest := v[1:end], v[end+1:]
		if rest != "" {
			var found bool
			if port, found = strings.CutPrefix(rest, ":"); !found || port == "" {
				return "", "", false
			}
		}
		return ipv6Host(host, port)
	case colons == 1:
		host, port, _ = strings.Cut(v, ":")
		if port == "" {
			return "", "", false
		}
	case colons > 1:
		return ipv6Host(v, "")
	}
	if strings.Trim(port, "0123456789") != "" {
		return "", "", false
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	return host, port, host != ""
}

// ipv6Host is splitHost's answer for an IPv6 address.
func ipv6Host(addr, port string) (string, string, bool) {
	a, err := netip.ParseAddr(addr)
	if err != nil || !a.Is6() || strings.Trim(port, "0123456789") != "" {
		return "", "", false
	}
	return a.String(), port, true
}
