package appscript

// MethodInfo is one row of the method table: the global a script calls, the platform method the Host
// receives and the manifest permission it needs.
type MethodInfo struct {
	// Global is the JavaScript path a script calls, e.g. "svc.wallet.balances".
	Global string
	// Method is the name Host.Call receives, e.g. "wallet.balances".
	Method string
	// Permission is the manifest permission the call needs, e.g. "read:wallet".
	Permission string
}

// methodX402Fetch is the reserved method: its permission is checked, then it always fails.
const methodX402Fetch = "x402.fetch"

// x402Unavailable is the error every svc.x402.fetch call throws once its permission is declared.
const x402Unavailable = "fetch:x402 is not available to app scripts yet (reserved): use the frontend's svc.x402.fetch"

// methodTable is the one table every platform call of a script goes through. The order is the order
// of the docs. svc.* paths are also reachable under the alias bankr.*.
var methodTable = []MethodInfo{
	{"svc.wallet.identity", "wallet.identity", "read:wallet"},
	{"svc.wallet.balances", "wallet.balances", "read:wallet"},
	{"svc.portfolio", "portfolio", "read:portfolio"},
	{"svc.positions", "positions", "read:positions"},
	{"svc.tokens.info", "tokens.info", "read:tokens"},
	{"svc.files.read", "files.read", "read:files"},
	{"svc.files.list", "files.list", "read:files"},
	{"svc.files.search", "files.search", "read:files"},
	{"svc.files.write", "files.write", "write:files"},
	{"svc.chain.readContract", "chain.readContract", "read:chain"},
	{"svc.chain.multicall", "chain.multicall", "read:chain"},
	{"svc.chain.getBalance", "chain.getBalance", "read:chain"},
	{"svc.chain.getLogs", "chain.getLogs", "read:chain"},
	{"svc.chain.encodeFunctionData", "chain.encodeFunctionData", "read:chain"},
	{"svc.tx.prepare", "tx.prepare", "prepare:transaction"},
	{"svc.swap", "tx.swap", "execute:swap"},
	{"svc.transfer", "tx.transfer", "execute:transfer"},
	{"svc.sign", "tx.sign", "execute:sign"},
	{"svc.askAgent", "agent.ask", "invoke:agent"},
	{"svc.x402.fetch", methodX402Fetch, "fetch:x402"},
	{"appKV.get", "appKV.get", "read:appdata"},
	{"appKV.list", "appKV.list", "read:appdata"},
	{"appKV.set", "appKV.set", "write:appdata"},
	{"appKV.delete", "appKV.delete", "write:appdata"},
	{"http.fetch", "http.fetch", "fetch:http"},
	{"secrets.get", "secrets.get", "read:secrets"},
	{"secrets.status", "secrets.status", "read:secrets"},
}

// methodsByName indexes methodTable by Method.
var methodsByName = func() map[string]MethodInfo {
	m := make(map[string]MethodInfo, len(methodTable))
	for _, info := range methodTable {
		m[info.Method] = info
	}
	return m
}()

// Method returns the manifest permission platform method name (e.g. "appKV.get") needs, and whether
// the method exists. svc.x402.fetch ("x402.fetch") exists but always fails after its check.
func Method(name string) (permission string, ok bool) {
	info, ok := methodsByName[name]
	return info.Permission, ok
}

// Methods returns a copy of the whole method table, in documentation order.
func Methods() []MethodInfo {
	return append([]MethodInfo(nil), methodTable...)
}
