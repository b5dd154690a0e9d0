package platform

import (
	"net/netip"
	"strings"
)

// refusedPrefixes are ranges that are not public unicast addresses, beyond what netip's
// predicates cover: shared (carrier-grade NAT) space, which also holds some clouds'
// metadata services, the IETF and documentation ranges, benchmarking, reserved and
// broadcast space, and the IPv6 ranges that embed an IPv4 address (NAT64, 6to4, Teredo,
// IPv4-compatible, IPv4-translated), which could smuggle a private IPv4 address past a check.
var refusedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("192.88.99.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("0:0:0:0:ffff::/96"), // IPv4-translated (SIIT): ::ffff:0:a.b.c.d
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001::/32"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"),
	netip.MustParsePrefix("fec0::/10"),
}

// metadataAddrs are cloud metadata endpoints: refused even when an allowed prefix covers
// them.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"),
	netip.MustParseAddr("169.254.170.2"),
	netip.MustParseAddr("100.100.100.200"),
	netip.MustParseAddr("fd00:ec2::254"),
}

// addrPolicy decides which IP addresses requests may connect to.
type addrPolicy struct {
	allow []netip.Prefix // non-public ranges the host allows
}

// check returns "" when ip may be dialled, else why not.
func (p addrPolicy) check(ip netip.Addr) string {
	if !ip.IsValid() {
		return "an invalid address"
	}
	ip = ip.Unmap().WithZone("")
	for _, m := range metadataAddrs {
		if ip == m {
			return "a cloud metadata address"
		}
	}
	for _, pre := range p.allow {
		if pre.Contains(ip) {
			return ""
		}
	}
	switch {
	case ip.IsUnspecified():
		return "an unspecified address"
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsPrivate():
		return "a private address"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "a link-local address"
	case ip.IsMulticast():
		return "a multicast address"
	}
	for _, pre := range refusedPrefixes {
		if pre.Contains(ip) {
			return "a reserved or non-public address (" + pre.String() + ")"
		}
	}
	return ""
}

// numericHost reports whether a host name is made of numbers only but is not a canonical
// IPv4 address: "2130706433", "0177.0.0.1", "0x7f.1", "127.1". C resolvers read these as
// addresses (inet_aton), so they are refused rather than handed to a resolver. A real host
// name's last label never starts with a digit.
func numericHost(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		trimmed := strings.TrimSuffix(host, ".")
		if trimmed == host || trimmed == "" {
			return false
		}
		return numericHost(trimmed)
	}
	if last[0] < '0' || last[0] > '9' {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err != nil || !ip.Is4()
}
