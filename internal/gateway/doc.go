// Package gateway invokes external managed services: HTTP services an operator lists in a services.yaml
// file, each with operations the platform forwards to (POST /v1/services/{serviceId}/invoke), optionally
// with a protected connection's credential injected.
//
// # services.yaml
//
//	services:
//	  - id: imagegen              # service id: [a-z0-9][a-z0-9-]*, at most 63 characters, not a built-in id
//	    name: Image generation    # optional, defaults to the id
//	    baseUrl: http://127.0.0.1:9000   # http or https; may carry a path prefix; no user info, query or fragment
//	    contract: generation      # optional: the generation-service contract (preflight GET /health, /v1/models)
//	    allowPrivate: false       # optional: allow private, shared (100.64/10), loopback and link-local targets
//	    timeout: 30s              # optional Go duration, 1ms..10m, default 30s: the whole exchange
//	    connection: imagegen-key  # optional: name of the caller's connection whose credential is injected
//	    operations:               # at least one
//	      - id: generate          # [a-z0-9][a-zA-Z0-9._-]*, at most 64 characters, unique in the service
//	        method: POST          # GET, POST, PUT, PATCH or DELETE (any case)
//	        path: /v1/images      # appended to baseUrl's path; starts with /, no query, fragment or ..
//	        credits: 2.5          # optional listed price per call in credits, >= 0, at most 3 decimals
//	        requiresApproval: false
//
// Unknown and duplicate keys are errors. Every error names the field path, for example
// services[0].operations[1].method.
//
// # Invocation
//
// Invoker.Invoke sends the operation's method to baseUrl+path. For POST, PUT and PATCH the JSON input is
// the body ({} when there is none) with Content-Type: application/json. For GET and DELETE the input must
// be a flat JSON object (or empty), which becomes the query string: strings as they are, numbers as written,
// booleans as true/false, arrays of those as repeated parameters, null omitted; a nested object is an
// invalid_request naming input.<key>. The request carries X-Request-Id (ours, for correlation) and the
// credential, and nothing of the caller's request: its Authorization never reaches an upstream.
//
// The answer carries the upstream status, the body as JSON (a JSON string when the body is not JSON,
// null when it is empty; more than 10 MiB is an error), the charge the upstream reports in
// X-Svc-Credits-Charged (decimal credits, >= 0, at most 3 decimals; anything else is an
// upstream_invalid_response, never a charge), and its correlation id from X-Svc-Upstream-Request-Id or,
// failing that, its X-Request-Id.
//
// # Outbound guard
//
// Every connection is checked at dial time, on the address actually dialled (after DNS resolution, so
// rebinding cannot slip through): loopback, private (RFC 1918, fc00::/7), shared (100.64/10), link-local
// (169.254/16, fe80::/10), unspecified, multicast and other reserved addresses are refused unless the
// service sets allowPrivate (which admits private, shared, loopback and link-local), or the Invoker's
// AllowLoopback (development) admits loopback. Cloud metadata addresses (169.254.169.254, fd00:ec2::254)
// are refused always. Proxies from the environment are ignored (they would hide the target from the
// guard). Redirects are followed only within the same origin (scheme, host, port), at most 5; a redirect
// elsewhere is refused so a credential never follows it.
package gateway
