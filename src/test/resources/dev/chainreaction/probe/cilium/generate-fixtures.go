//go:build ignore

// Regenerates the fixtures of this directory: go run generate-fixtures.go .
//
// Replays cilium-dbg's own format code (format strings and text/tabwriter settings copied from
// cilium/cilium sources) with sample values of a single-node k3s lab, to produce honest fixtures.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
)

var out = os.Args[1]

func write(name string, b []byte) {
	if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
		panic(err)
	}
}

// ---------- cilium-dbg bpf lb list: TablePrinter (cilium-dbg/cmd/helpers.go) ----------

type kv struct {
	key     string
	entries []string
}

func tablePrinter(firstTitle, secondTitle string, data []kv) []byte {
	var buf bytes.Buffer
	w := tabwriter.NewWriter(&buf, 5, 0, 3, ' ', 0)
	fmt.Fprintf(w, "%s\t%s\n", firstTitle, secondTitle)
	for _, e := range data {
		for k, v := range e.entries {
			if k == 0 {
				fmt.Fprintf(w, "%s\t%s\t\n", e.key, v)
			} else {
				fmt.Fprintf(w, "%s\t%s\t\n", "", v)
			}
		}
	}
	w.Flush()
	return buf.Bytes()
}

type svc struct {
	ip    string
	port  int
	proto string
	rev   int
	flags string
	bes   []string // "ip:port"
}

var lab = []svc{
	{"10.43.0.1", 443, "TCP", 1, "ClusterIP, non-routable", []string{"172.18.0.2:6443"}},
	{"10.43.0.10", 53, "UDP", 2, "ClusterIP, non-routable", []string{"10.42.0.3:53"}},
	{"10.43.0.10", 53, "TCP", 3, "ClusterIP, non-routable", []string{"10.42.0.3:53"}},
	{"10.43.0.10", 9153, "TCP", 4, "ClusterIP, non-routable", []string{"10.42.0.3:9153"}},
	{"10.43.12.7", 80, "TCP", 5, "ClusterIP, non-routable", []string{"10.42.0.15:8080", "10.42.0.23:8080"}},
	{"0.0.0.0", 30780, "TCP", 6, "NodePort, non-routable", []string{"10.42.0.15:8080", "10.42.0.23:8080"}},
	{"172.18.0.2", 30780, "TCP", 7, "NodePort", []string{"10.42.0.15:8080", "10.42.0.23:8080"}},
	{"10.43.200.9", 80, "TCP", 8, "ClusterIP, non-routable", nil},
}

// pkg/loadbalancer/maps/types.go (1.18): Service4Key.String() = "ip:port/PROTO (slot)", one map key per slot;
// cilium-dbg/cmd/bpf_lb_list.go dumpSVC: slot 0 "%s:%d (%d) (%d) [%s] %s", backends "%s:%d/%s (%d) (%d)".
func perSlot() []byte {
	var data []kv
	for i, s := range lab {
		var rows []kv
		rows = append(rows, kv{fmt.Sprintf("%s:%d/%s (%d)", s.ip, s.port, s.proto, 0),
			[]string{fmt.Sprintf("%s:%d (%d) (%d) [%s] %s", "0.0.0.0", 0, s.rev, 0, s.flags, "")}})
		for j, be := range s.bes {
			h := strings.Split(be, ":")
			rows = append(rows, kv{fmt.Sprintf("%s:%d/%s (%d)", s.ip, s.port, s.proto, j+1),
				[]string{fmt.Sprintf("%s:%s/%s (%d) (%d)", h[0], h[1], s.proto, s.rev, j+1)}})
		}
		// map iteration order is random: rotate so slot 0 is not always first
		if i%2 == 1 && len(rows) > 1 {
			rows = append(rows[1:], rows[0])
		}
		data = append(data, rows...)
	}
	return tablePrinter("SERVICE ADDRESS", "BACKEND ADDRESS (REVNAT_ID) (SLOT)", data)
}

// pkg/maps/lbmap serviceKey() "ip:port/PROTO" (no slot): all slots of a service under one key, grouped;
// cilium-dbg/cmd/bpf_lb_list.go @21d690e1 entry formats as above.
func grouped() []byte {
	var data []kv
	for i, s := range lab {
		var entries []string
		entries = append(entries, fmt.Sprintf("%s:%d (%d) (%d) [%s] %s", "0.0.0.0", 0, s.rev, 0, s.flags, ""))
		for j, be := range s.bes {
			h := strings.Split(be, ":")
			entries = append(entries, fmt.Sprintf("%s:%s/%s (%d) (%d)", h[0], h[1], s.proto, s.rev, j+1))
		}
		if i%2 == 1 && len(entries) > 1 {
			entries = append(entries[1:], entries[0])
		}
		data = append(data, kv{fmt.Sprintf("%s:%d/%s", s.ip, s.port, s.proto), entries})
	}
	return tablePrinter("SERVICE ADDRESS", "BACKEND ADDRESS (REVNAT_ID) (SLOT)", data)
}

// Older lbmap: Service4Key.String() "ip:port" (protocol ANY omitted), slot 0 "%s:%d (%d) (%d) [%s]",
// backends "%s:%d (%d) (%d)" without protocol; a slot whose backend is missing prints "backend %d not found".
func groupedNoProto() []byte {
	var data []kv
	seen := map[string]bool{}
	for i, s := range lab {
		key := fmt.Sprintf("%s:%d", s.ip, s.port)
		if seen[key] { // no protocol in the key: TCP and UDP on one port were one service then
			continue
		}
		seen[key] = true
		var entries []string
		entries = append(entries, fmt.Sprintf("%s:%d (%d) (%d) [%s]", "0.0.0.0", 0, s.rev, 0, s.flags))
		for j, be := range s.bes {
			h := strings.Split(be, ":")
			entries = append(entries, fmt.Sprintf("%s:%s (%d) (%d)", h[0], h[1], s.rev, j+1))
		}
		if s.port == 9153 {
			entries = append(entries, fmt.Sprintf("backend %d not found", 12))
		}
		if i%2 == 1 && len(entries) > 1 {
			entries = append(entries[1:], entries[0])
		}
		data = append(data, kv{key, entries})
	}
	return tablePrinter("SERVICE ADDRESS", "BACKEND ADDRESS (REVNAT_ID) (SLOT)", data)
}

// ---------- cilium-dbg bpf ct list global ----------

type ct struct {
	proto, dir string // dir: IN, OUT, SVC
	src, dst   string
	sport      int
	dport      int
	related    bool
	lifetime   uint32
	pk, by     uint64
	rxSeen     uint8
	lastRx     uint32
	txSeen     uint8
	lastTx     uint32
	flags      uint16
	revnat     int
	secid      uint32
	backend    uint64
}

// pkg/maps/ctmap: flagsString() "Flags=%#04x [ ... ]"
func flagsString(f uint16) string {
	var sb strings.Builder
	sb.WriteString(fmt.Sprintf("Flags=%#04x [ ", f))
	names := []string{"RxClosing", "TxClosing", "Nat64", "LBLoopback", "SeenNonSyn", "NodePort", "ProxyRedirect", "DSR", "FromL7LB", "Reserved1", "FromTunnel"}
	for i, n := range names {
		if f&(1<<i) != 0 {
			sb.WriteString(n + " ")
		}
	}
	sb.WriteString("]")
	return sb.String()
}

func addr(a string, port int) string {
	if strings.Contains(a, ":") {
		return fmt.Sprintf("[%s]:%d", a, port)
	}
	return fmt.Sprintf("%s:%d", a, port)
}

// Key: CtKey{4,6}Global.Dump (" SVC "/" IN "/" OUT ", IPv6 in brackets, "related "); value: the 1.16-1.18
// StringWithTimeDiff format (the "-" side of PR #43017, with BackendID from PR #32563, before NatPort).
func ctModern(es []ct) string {
	var sb strings.Builder
	for _, e := range es {
		sb.WriteString(e.proto)
		sb.WriteString(" " + e.dir + " " + addr(e.src, e.sport) + " -> " + addr(e.dst, e.dport) + " ")
		if e.related {
			sb.WriteString("related ")
		}
		sb.WriteString(fmt.Sprintf("expires=%d%s Packets=%d Bytes=%d RxFlagsSeen=%#02x LastRxReport=%d TxFlagsSeen=%#02x LastTxReport=%d %s RevNAT=%d SourceSecurityID=%d BackendID=%d \n",
			e.lifetime, "", e.pk, e.by, e.rxSeen, e.lastRx, e.txSeen, e.lastTx, flagsString(e.flags), e.revnat, e.secid, e.backend))
	}
	return sb.String()
}

// Before PR #28913 (v1.15): service entries printed as "OUT" in reverse, with a "service" word; value format
// "expires=%d%s RxPackets=%d RxBytes=%d ... IfIndex=%d \n" (pkg/maps/ctmap/types.go of that time).
func ctOld(es []ct) string {
	var sb strings.Builder
	for _, e := range es {
		dir, src, sport, dst, dport, word := e.dir, e.src, e.sport, e.dst, e.dport, ""
		if e.dir == "SVC" {
			dir, src, sport, dst, dport, word = "OUT", e.dst, e.dport, e.src, e.sport, "service "
		}
		rel := ""
		if e.related {
			rel = "related "
		}
		sb.WriteString(fmt.Sprintf("%s %s %s:%d -> %s:%d %s%s", e.proto, dir, src, sport, dst, dport, rel, word))
		sb.WriteString(fmt.Sprintf("expires=%d%s RxPackets=%d RxBytes=%d RxFlagsSeen=%#02x LastRxReport=%d TxPackets=%d TxBytes=%d TxFlagsSeen=%#02x LastTxReport=%d %s RevNAT=%d SourceSecurityID=%d IfIndex=%d \n",
			e.lifetime, "", 0, e.by, e.rxSeen, e.lastRx, 0, 0, e.txSeen, e.lastTx, flagsString(e.flags), e.revnat, e.secid, 0))
	}
	return sb.String()
}

var tcp4 = []ct{
	// the lab's client pod holds a connection from port 40404; socket LB already picked backend 10.42.0.15
	{"TCP", "OUT", "10.42.0.30", "10.42.0.15", 40404, 8080, false, 21813, 0, 0, 0x1a, 217, 0x1a, 217, 0x0010, 0, 38423, 0},
	{"TCP", "IN", "10.42.0.30", "10.42.0.15", 40404, 8080, false, 21813, 0, 0, 0x1a, 217, 0x1a, 217, 0x0010, 0, 38423, 0},
	// a NodePort request from outside went through the tc datapath: an SVC entry records the chosen backend
	{"TCP", "SVC", "172.18.0.1", "172.18.0.2", 51234, 30780, false, 246, 0, 0, 0x00, 0, 0x1b, 236, 0x0013, 7, 0, 3},
	{"TCP", "OUT", "172.18.0.1", "10.42.0.23", 51234, 8080, false, 246, 0, 0, 0x1b, 236, 0x1b, 236, 0x0033, 7, 0, 0},
	{"TCP", "OUT", "10.42.0.30", "10.42.0.23", 40416, 8080, false, 245, 0, 0, 0x1b, 235, 0x1b, 235, 0x0013, 0, 38423, 0},
}
var any4 = []ct{
	{"UDP", "OUT", "10.42.0.30", "10.42.0.3", 45678, 53, false, 271, 0, 0, 0x00, 211, 0x00, 211, 0x0000, 0, 38423, 0},
	{"ICMP", "OUT", "10.42.0.30", "10.42.0.15", 0, 0, true, 271, 0, 0, 0x00, 211, 0x00, 211, 0x0000, 0, 38423, 0},
}
var tcp6 = []ct{
	{"TCP", "OUT", "fd00:10:42::30", "fd00:10:42::15", 40418, 8080, false, 21799, 0, 0, 0x1a, 203, 0x1a, 203, 0x0010, 0, 38423, 0},
}

// ---------- cilium-dbg status ----------

func statusModern(kpr string, verbose bool, hostnsOnly bool) []byte {
	var buf bytes.Buffer
	w := tabwriter.NewWriter(&buf, 2, 0, 3, ' ', 0) // cilium-dbg/cmd/status.go
	fmt.Fprintf(w, "KVStore:\t%s\t%s\n", "Disabled", "")
	fmt.Fprintf(w, "Kubernetes:\t%s\t%s\n", "Ok", "1.34 (v1.34.2+k3s1) [linux/amd64]")
	apis := []string{"EndpointSliceOrEndpoint", "cilium/v2::CiliumClusterwideNetworkPolicy", "cilium/v2::CiliumEndpoint", "cilium/v2::CiliumNetworkPolicy", "cilium/v2::CiliumNode", "cilium/v2alpha1::CiliumCIDRGroup", "core/v1::Namespace", "core/v1::Pods", "core/v1::Service", "networking.k8s.io/v1::NetworkPolicy"}
	sort.Strings(apis)
	fmt.Fprintf(w, "Kubernetes APIs:\t[\"%s\"]\n", strings.Join(apis, "\", \""))
	kubeProxyDevices := ""
	devices := ""
	if kpr != "False" && kpr != "Disabled" {
		kubeProxyDevices += fmt.Sprintf("%s %s", "eth0", strings.Join([]string{"172.18.0.2"}, " "))
		kubeProxyDevices += " (Direct Routing)"
		devices = "[" + kubeProxyDevices + "]"
	}
	fmt.Fprintf(w, "KubeProxyReplacement:\t%s\t%s\n", kpr, devices)
	fmt.Fprintf(w, "Host firewall:\t%s", "Disabled")
	fmt.Fprintf(w, "\n")
	fmt.Fprintf(w, "SRv6:\t%s\n", "Disabled")
	fmt.Fprintf(w, "CNI Chaining:\t%s\n", "none")
	fmt.Fprintf(w, "CNI Config file:\t%s\n", "successfully wrote CNI configuration file to /host/etc/cni/net.d/05-cilium.conflist")
	fmt.Fprintf(w, "Cilium:\t%s   %s\n", "Ok", "1.18.4 (v1.18.4-5d2e1c0f)")
	fmt.Fprintf(w, "NodeMonitor:\tListening for events on %d CPUs with %dx%d of shared memory\n", 2, 64, 4096)
	fmt.Fprintf(w, "Cilium health daemon:\t%s\t%s\n", "Ok", "")
	fmt.Fprintf(w, "IPAM:\t%s\n", "IPv4: 6/254 allocated from 10.42.0.0/24, ")
	if verbose {
		fmt.Fprintf(w, "Allocated addresses:\n")
		outs := []string{"  10.42.0.45 (router)", "  10.42.0.101 (health)", "  10.42.0.3 (kube-system/coredns-64fd4b4794-tq6xv)", "  10.42.0.15 (cca-dp/web-5c7b9d6d8-2hxkq)", "  10.42.0.23 (cca-dp/web-5c7b9d6d8-m4wzp)", "  10.42.0.30 (cca-dp/client)"}
		sort.Strings(outs)
		for _, line := range outs {
			fmt.Fprintln(w, line)
		}
	}
	fmt.Fprintf(w, "IPv4 BIG TCP:\t%s\n", "Disabled")
	fmt.Fprintf(w, "IPv6 BIG TCP:\t%s\n", "Disabled")
	fmt.Fprintf(w, "BandwidthManager:\t%s\n", "Disabled")
	fmt.Fprintf(w, "Routing:\t%s\n", "Network: Tunnel [vxlan]"+"\tHost: "+"Legacy")
	fmt.Fprintf(w, "Attach Mode:\t%s\n", "TCX")
	fmt.Fprintf(w, "Device Mode:\t%s\n", "veth")
	fmt.Fprintf(w, "Masquerading:\t%s\n", fmt.Sprintf("%s [IPv4: %s, IPv6: %s]", "IPTables", "Enabled", "Disabled"))
	if verbose {
		fmt.Fprintf(w, "Clock Source for BPF:\t%s\n", "ktime")
	}
	ctrls := [][]string{
		{"cilium-health-ep", "31s ago", "never", "0", "no error"},
		{"endpoint-1287-regeneration-recovery", "never", "never", "0", "no error"},
		{"ipcache-inject-labels", "52s ago", "13m7s ago", "0", "no error"},
		{"k8s-heartbeat", "7s ago", "never", "0", "no error"},
		{"sync-host-ips", "52s ago", "never", "0", "no error"},
	}
	out := []string{"  Name\tLast success\tLast error\tCount\tMessage\n"}
	if verbose {
		for _, c := range ctrls {
			out = append(out, fmt.Sprintf("  %s\t%s\t%s\t%s\t%s\t\n", c[0], c[1], c[2], c[3], c[4]))
		}
	}
	fmt.Fprintf(w, "Controller Status:\t%d/%d healthy\n", 31, 31)
	if len(out) > 1 {
		tab := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
		sort.Strings(out)
		for _, s := range out {
			fmt.Fprint(tab, s)
		}
		tab.Flush()
	}
	fmt.Fprintf(w, "Proxy Status:\tOK, ip %s, %d redirects active on ports %s, Envoy: %s\n", "10.42.0.45", 0, "10000-20000", "external")
	fmt.Fprintf(w, "Global Identity Range:\tmin %d, max %d\n", 256, 65535)
	fmt.Fprintf(w, "Hubble:\t%s\n", strings.Join([]string{"Ok", "Current/Max Flows: 1203/4095 (29.38%), Flows/s: 3.21", "Metrics: Disabled"}, "\t"))
	if verbose {
		on := kpr == "True"
		en := func(b bool) string {
			if b {
				return "Enabled"
			}
			return "Disabled"
		}
		var mode, selection, xdp string
		nPort, lb := "Disabled", "Disabled"
		if on {
			mode, selection, xdp = "SNAT", "Random", "Disabled"
			nPort = fmt.Sprintf("Enabled (Range: %d-%d)", 30000, 32767)
			lb = "Enabled"
		}
		coverage := "Full"
		if hostnsOnly {
			coverage = "Hostns-only"
		}
		fmt.Fprintf(w, "KubeProxyReplacement Details:\n")
		tab := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
		fmt.Fprintf(tab, "  Status:\t%s\n", kpr)
		fmt.Fprintf(tab, "  Socket LB:\t%s\n", en(on))
		fmt.Fprintf(tab, "  Socket LB Tracing:\t%s\n", en(on))
		fmt.Fprintf(tab, "  Socket LB Coverage:\t%s\n", coverage)
		if kubeProxyDevices != "" {
			fmt.Fprintf(tab, "  Devices:\t%s\n", kubeProxyDevices)
		}
		if mode != "" {
			fmt.Fprintf(tab, "  Mode:\t%s\n", mode)
		}
		if selection != "" {
			fmt.Fprintf(tab, "  Backend Selection:\t%s\n", selection)
		}
		fmt.Fprintf(tab, "  Session Affinity:\t%s\n", en(on))
		fmt.Fprintf(tab, "  Graceful Termination:\t%s\n", "Enabled")
		fmt.Fprintf(tab, "  NAT46/64 Support:\t%s\n", "Disabled")
		if xdp != "" {
			fmt.Fprintf(tab, "  XDP Acceleration:\t%s\n", xdp)
		}
		fmt.Fprintf(tab, "  Services:\n")
		fmt.Fprintf(tab, "  - ClusterIP:\t%s\n", "Enabled")
		fmt.Fprintf(tab, "  - NodePort:\t%s \n", nPort)
		fmt.Fprintf(tab, "  - LoadBalancer:\t%s \n", lb)
		fmt.Fprintf(tab, "  - externalIPs:\t%s \n", en(on))
		fmt.Fprintf(tab, "  - HostPort:\t%s\n", en(on))
		tab.Flush()

		fmt.Fprintf(w, "BPF Maps:\tdynamic sizing: %s\n", fmt.Sprintf("on (ratio: %f)", 0.0025))
		tab = tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
		fmt.Fprintf(tab, "  Name\tSize\n")
		for _, m := range [][]any{{"Auth", 524288}, {"Non-TCP connection tracking", 65536}, {"TCP connection tracking", 131072}, {"Endpoints", 65535}, {"IP cache", 512000}, {"IPv4 service", 65536}, {"IPv4 service backend", 65536}, {"IPv4 service reverse NAT", 65536}, {"Metrics", 1024}} {
			fmt.Fprintf(tab, "  %s\t%d\n", m[0], m[1])
		}
		tab.Flush()
	}
	fmt.Fprintf(w, "Encryption:\t%s\t%s\n", "Disabled", "")
	// pkg/health/client: GetAndFormatHealthStatus(w, succinct=true, verbose, lines)
	fmt.Fprintf(w, "Cluster health:\t%d/%d reachable\t(%s)\n", 1, 1, "2025-11-20T09:41:07Z")
	if verbose {
		fmt.Fprintf(w, "  Name\tIP\tNode\tEndpoints\n")
		fmt.Fprintf(w, "  %s%s\t%s\t%s\t%s\n", "crx-k3s-4c1d2e", " (localhost)", "172.18.0.2", "reachable", "reachable")
	}
	w.Flush()
	return buf.Bytes()
}

// The 2020-era pkg/client/client.go: modes Strict/Partial/Probe/Disabled, "Socket LB Protocols" and no
// Socket LB / Coverage lines; "Host Routing" instead of "Routing".
func statusOld(kpr string, verbose bool) []byte {
	var buf bytes.Buffer
	w := tabwriter.NewWriter(&buf, 2, 0, 3, ' ', 0)
	fmt.Fprintf(w, "KVStore:\t%s\t%s\n", "Ok", "Disabled")
	fmt.Fprintf(w, "Kubernetes:\t%s\t%s\n", "Ok", "1.27 (v1.27.4+k3s1) [linux/amd64]")
	fmt.Fprintf(w, "Kubernetes APIs:\t[\"%s\"]\n", strings.Join([]string{"cilium/v2::CiliumClusterwideNetworkPolicy", "cilium/v2::CiliumEndpoint", "cilium/v2::CiliumNetworkPolicy", "cilium/v2::CiliumNode", "core/v1::Namespace", "core/v1::Node", "core/v1::Pods", "core/v1::Service", "discovery/v1::EndpointSlice", "networking.k8s.io/v1::NetworkPolicy"}, "\", \""))
	kubeProxyDevices, devices := "", ""
	if kpr != "Disabled" {
		kubeProxyDevices += fmt.Sprintf("%s %s", "eth0", "172.18.0.2")
		kubeProxyDevices += " (Direct Routing)"
		devices = "[" + kubeProxyDevices + "]"
	}
	fmt.Fprintf(w, "KubeProxyReplacement:\t%s\t%s\n", kpr, devices)
	fmt.Fprintf(w, "Host firewall:\t%s", "Disabled")
	fmt.Fprintf(w, "\n")
	fmt.Fprintf(w, "Cilium:\t%s   %s\n", "Ok", "1.12.10 (v1.12.10-1f2a8c9)")
	fmt.Fprintf(w, "NodeMonitor:\tListening for events on %d CPUs with %dx%d of shared memory\n", 2, 64, 4096)
	fmt.Fprintf(w, "Cilium health daemon:\t%s\t%s\n", "Ok", "")
	fmt.Fprintf(w, "IPAM:\t%s\n", "IPv4: 5/254 allocated from 10.42.0.0/24, ")
	fmt.Fprintf(w, "BandwidthManager:\t%s\n", "Disabled")
	fmt.Fprintf(w, "Host Routing:\t%s\n", "Legacy")
	fmt.Fprintf(w, "Masquerading:\t%s\n", "IPTables [IPv4: Enabled, IPv6: Disabled]")
	fmt.Fprintf(w, "Controller Status:\t%d/%d healthy\n", 24, 24)
	fmt.Fprintf(w, "Proxy Status:\tOK, ip %s, %d redirects active on ports %s\n", "10.42.0.45", 0, "10000-20000")
	fmt.Fprintf(w, "Hubble:\t%s\n", strings.Join([]string{"Ok", "Current/Max Flows: 412/4095 (10.06%), Flows/s: 1.83", "Metrics: Disabled"}, "\t"))
	if verbose {
		nPort, lb, mode, selection, xdp := "Disabled", "Disabled", "", "", ""
		if kpr == "Strict" || kpr == "Probe" {
			nPort = fmt.Sprintf("Enabled (Range: %d-%d)", 30000, 32767)
			lb, mode, selection, xdp = "Enabled", "SNAT", "Random", "Disabled"
		}
		fmt.Fprintf(w, "KubeProxyReplacement Details:\n")
		tab := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
		fmt.Fprintf(tab, "  Status:\t%s\n", kpr)
		fmt.Fprintf(tab, "  Socket LB Protocols:\t%s\n", "TCP, UDP")
		if kubeProxyDevices != "" {
			fmt.Fprintf(tab, "  Devices:\t%s\n", kubeProxyDevices)
		}
		if mode != "" {
			fmt.Fprintf(tab, "  Mode:\t%s\n", mode)
		}
		if selection != "" {
			fmt.Fprintf(tab, "  Backend Selection:\t%s\n", selection)
		}
		fmt.Fprintf(tab, "  Session Affinity:\t%s\n", "Enabled")
		if xdp != "" {
			fmt.Fprintf(tab, "  XDP Acceleration:\t%s\n", xdp)
		}
		fmt.Fprintf(tab, "  Services:\n")
		fmt.Fprintf(tab, "  - ClusterIP:\t%s\n", "Enabled")
		fmt.Fprintf(tab, "  - NodePort:\t%s \n", nPort)
		fmt.Fprintf(tab, "  - LoadBalancer:\t%s \n", lb)
		fmt.Fprintf(tab, "  - externalIPs:\t%s \n", lb)
		fmt.Fprintf(tab, "  - HostPort:\t%s\n", lb)
		tab.Flush()
	}
	fmt.Fprintf(w, "Cluster health:\t%d/%d reachable\t(%s)\n", 1, 1, "2023-08-14T12:03:55Z")
	w.Flush()
	return buf.Bytes()
}

// ---------- cilium-dbg config -a: printConfigurations (cilium-dbg/cmd/config.go, helpers.go dumpConfig) ----------

func normalizeBool(v string) (bool, bool) { // pkg/option NormalizeBool: (value, ok)
	switch strings.ToLower(v) {
	case "true", "on", "enable", "enabled", "1":
		return true, true
	case "false", "off", "disable", "disabled", "0":
		return false, true
	}
	return false, false
}

func dumpConfig(w *bytes.Buffer, opts map[string]string, indented bool) {
	keys := []string{}
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		value := opts[k]
		formatStr := "%-34s: %s\n"
		if indented {
			formatStr = "\t%-26s: %s\n"
		}
		if b, ok := normalizeBool(value); !ok {
			fmt.Fprintf(w, formatStr, k, value)
		} else if !b {
			fmt.Fprintf(w, formatStr, k, "Disabled")
		} else {
			fmt.Fprintf(w, formatStr, k, "Enabled")
		}
	}
}

func configAll(noBackend string) []byte {
	// DaemonConfigurationMap is option.Config marshalled to JSON and back: numbers are float64, keys are the
	// DaemonConfig field names.
	raw := fmt.Sprintf(`{"AgentHealthPort":9879,"AllowICMPFragNeeded":true,"AllowLocalhost":"always","AnnotateK8sNode":false,
	"BPFMapsDynamicSizeRatio":0.0025,"BPFRoot":"/sys/fs/bpf","BPFSocketLBHostnsOnly":false,"CGroupRoot":"/run/cilium/cgroupv2",
	"CTMapEntriesGlobalAny":65536,"CTMapEntriesGlobalTCP":131072,"ClusterID":0,"ClusterName":"default","DatapathMode":"veth",
	"EnableHostPort":true,"EnableIPv4":true,"EnableIPv6":false,"EnableNodePort":true,"EnableSessionAffinity":true,
	"EnableSocketLB":true,"FixedIdentityMapping":{},"IPAM":"kubernetes","IPv4NativeRoutingCIDR":null,"KubeProxyReplacement":"true",
	"MaxControllerInterval":0,"NodePortAcceleration":"disabled","NodePortMax":32767,"NodePortMin":30000,"NodePortMode":"snat",
	"PolicyMapEntries":16384,"RoutingMode":"tunnel","ServiceNoBackendResponse":%q,"TunnelProtocol":"vxlan",
	"SocketLBTracing":true,"TracePayloadlen":128,"TracePayloadlenOverlay":192,"BPFCompileDebug":"","ExtraConfig":{"bpf-lb-sock":"true","enable-hubble":"true"},
	"Devices":["eth0"],"K8sNamespace":"kube-system","LBMapEntries":65536,"MTU":0,"NodeEncryptionOptOutLabelsString":"node-role.kubernetes.io/control-plane"}`, noBackend)
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	fmt.Fprintln(&buf, "#### Read-only configurations ####")
	keys := []string{}
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		if mm, ok := v.(map[string]any); ok {
			fmt.Fprintln(&buf, k)
			s := map[string]string{}
			for key, value := range mm {
				s[key] = fmt.Sprintf("%v", value)
			}
			dumpConfig(&buf, s, true)
			continue
		}
		fmt.Fprintf(&buf, "%-34s: %v\n", k, v)
	}
	fmt.Fprintf(&buf, "%-34s: %s\n", "k8s-configuration", "")
	fmt.Fprintf(&buf, "%-34s: %s\n", "k8s-endpoint", "https://172.18.0.2:6443")
	dumpConfig(&buf, map[string]string{}, false)
	fmt.Fprintln(&buf, "##### Read-write configurations #####")
	dumpConfig(&buf, map[string]string{"ConntrackAccounting": "Disabled", "ConntrackLocal": "Disabled", "Debug": "Disabled",
		"DebugLB": "Disabled", "DebugPolicy": "Disabled", "DropNotification": "Enabled", "MonitorAggregationLevel": "Medium",
		"PolicyAccounting": "Enabled", "PolicyAuditMode": "Disabled", "PolicyTracing": "Disabled",
		"PolicyVerdictNotification": "Enabled", "SourceIPVerification": "Enabled", "TraceNotification": "Enabled"}, false)
	fmt.Fprintf(&buf, "%-34s: %d\n", "MonitorNumPages", 64)
	fmt.Fprintf(&buf, "%-34s: %s\n", "PolicyEnforcement", "default")
	return buf.Bytes()
}

func main() {
	write("bpf-lb-list-per-slot.txt", perSlot())
	write("bpf-lb-list-grouped.txt", grouped())
	write("bpf-lb-list-grouped-noproto.txt", groupedNoProto())
	// dumpCt: each map's dump is printed with fmt.Println (tcp4, any4, tcp6 order of GlobalMaps)
	write("bpf-ct-list-global.txt", []byte(ctModern(tcp4)+"\n"+ctModern(any4)+"\n"+ctModern(tcp6)+"\n"))
	write("bpf-ct-list-global-pre-1.15.txt", []byte(ctOld(tcp4)+"\n"+ctOld(any4)+"\n"))
	write("status-verbose.txt", statusModern("True", true, false))
	write("status-verbose-kpr-false.txt", statusModern("False", true, true))
	write("status.txt", statusModern("True", false, false))
	write("status-pre-1.15-strict-verbose.txt", statusOld("Strict", true))
	write("status-pre-1.15-partial.txt", statusOld("Partial", false))
	write("status-pre-1.15-disabled-verbose.txt", statusOld("Disabled", true))
	write("config-all.txt", configAll("reject"))
	write("config-all-drop.txt", configAll("drop"))
	write("service-list.json", serviceList())
}

// api/v1/models: BackendAddress, FrontendAddress, ServiceSpec(+Flags), Service, ServiceStatus; go-swagger
// declares fields alphabetically, so encoding/json prints them in that order; command.PrintOutput indents "  ".
type backend struct {
	IP        *string `json:"ip"`
	NodeName  string  `json:"nodeName,omitempty"`
	Port      uint16  `json:"port,omitempty"`
	Preferred bool    `json:"preferred,omitempty"`
	Protocol  string  `json:"protocol,omitempty"`
	State     string  `json:"state,omitempty"`
	Weight    *uint16 `json:"weight,omitempty"`
}
type flags struct {
	ExtTrafficPolicy string `json:"extTrafficPolicy,omitempty"`
	IntTrafficPolicy string `json:"intTrafficPolicy,omitempty"`
	Name             string `json:"name,omitempty"`
	Namespace        string `json:"namespace,omitempty"`
	TrafficPolicy    string `json:"trafficPolicy,omitempty"`
	Type             string `json:"type,omitempty"`
}
type frontend struct {
	IP       string `json:"ip,omitempty"`
	Port     uint16 `json:"port,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	Scope    string `json:"scope,omitempty"`
}
type spec struct {
	BackendAddresses []*backend `json:"backend-addresses"`
	Flags            *flags     `json:"flags,omitempty"`
	FrontendAddress  *frontend  `json:"frontend-address"`
	ID               int64      `json:"id,omitempty"`
}
type status struct {
	Realized *spec `json:"realized,omitempty"`
}
type service struct {
	Spec   *spec   `json:"spec,omitempty"`
	Status *status `json:"status,omitempty"`
}

func be(ip string, node string, port uint16, proto, state string) *backend {
	w := uint16(100)
	return &backend{IP: &ip, NodeName: node, Port: port, Preferred: true, Protocol: proto, State: state, Weight: &w}
}

func svcJSON(id int64, ip string, port uint16, proto, typ, ns, name string, bes ...*backend) *service {
	if bes == nil {
		bes = []*backend{}
	}
	s := &spec{BackendAddresses: bes, Flags: &flags{"Cluster", "Cluster", name, ns, "Cluster", typ},
		FrontendAddress: &frontend{ip, port, proto, "external"}, ID: id}
	return &service{Spec: s, Status: &status{Realized: s}}
}

func serviceList() []byte {
	node := "crx-k3s-4c1d2e"
	list := []*service{
		svcJSON(1, "10.43.0.1", 443, "TCP", "ClusterIP", "default", "kubernetes", be("172.18.0.2", "", 6443, "TCP", "active")),
		svcJSON(2, "10.43.0.10", 53, "UDP", "ClusterIP", "kube-system", "kube-dns", be("10.42.0.3", node, 53, "UDP", "active")),
		svcJSON(3, "10.43.0.10", 53, "TCP", "ClusterIP", "kube-system", "kube-dns", be("10.42.0.3", node, 53, "TCP", "active")),
		svcJSON(4, "10.43.0.10", 9153, "TCP", "ClusterIP", "kube-system", "kube-dns", be("10.42.0.3", node, 9153, "TCP", "active")),
		svcJSON(5, "10.43.12.7", 80, "TCP", "ClusterIP", "cca-dp", "web",
			be("10.42.0.15", node, 8080, "TCP", "active"), be("10.42.0.23", node, 8080, "TCP", "terminating")),
		svcJSON(6, "0.0.0.0", 30780, "TCP", "NodePort", "cca-dp", "web-np",
			be("10.42.0.15", node, 8080, "TCP", "active"), be("10.42.0.23", node, 8080, "TCP", "terminating")),
		svcJSON(7, "172.18.0.2", 30780, "TCP", "NodePort", "cca-dp", "web-np",
			be("10.42.0.15", node, 8080, "TCP", "active"), be("10.42.0.23", node, 8080, "TCP", "terminating")),
		svcJSON(8, "10.43.200.9", 80, "TCP", "ClusterIP", "cca-dp", "ghost"),
	}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}
