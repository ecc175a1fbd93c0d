package testbrowser

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/debinstall"
)

// Page is one page of a headless browser a test drives over the DevTools protocol, spoken on the pipe
// Chromium opens with --remote-debugging-pipe (file descriptors 3 and 4: no port, no WebSocket): the
// test evaluates JavaScript in the page as the person in front of it would act (click a button, read
// what is shown). Like DumpDOM, the browser is cut off from everything but 127.0.0.1.
type Page struct {
	t       testing.TB
	w       io.Writer
	mu      sync.Mutex
	next    int
	waiting map[int]chan cdpReply
	events  chan cdpEvent
	session string
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

type cdpEvent struct {
	Method    string
	SessionID string
}

// CallTimeout bounds one DevTools call (an Eval awaiting a promise included).
const CallTimeout = 45 * time.Second

// Open starts a headless browser (bin, from Require) with one page that has loaded url.
func Open(t testing.TB, bin, url string) *Page {
	t.Helper()
	toChrome, chromeIn, err := os.Pipe()
	if err != nil {
		t.Fatalf("devtools pipe: %v", err)
	}
	chromeOut, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatalf("devtools pipe: %v", err)
	}
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--user-data-dir=" + t.TempDir(), "--remote-debugging-pipe"}, Offline...)
	cmd := exec.CommandContext(t.Context(), bin, append(args, "about:blank")...)
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome} // fd 3: what Chromium reads, fd 4: what it writes
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	_ = toChrome.Close()
	_ = fromChrome.Close()
	p := &Page{t: t, w: chromeIn, waiting: map[int]chan cdpReply{}, events: make(chan cdpEvent, 256)}
	go p.read(chromeOut)
	t.Cleanup(func() {
		_ = chromeIn.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = chromeOut.Close()
	})
	p.attach(url, &stderr)
	return p
}

// attach opens a blank page, attaches to it and navigates it to url, waiting for its load event.
func (p *Page) attach(url string, stderr *strings.Builder) {
	p.t.Helper()
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := p.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &created); err != nil {
		p.t.Fatalf("open a page: %v\n%s", err, debinstall.Tail(stderr.String(), 3000))
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := p.call("", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached); err != nil {
		p.t.Fatalf("attach to the page: %v", err)
	}
	p.session = attached.SessionID
	if err := p.call(p.session, "Page.enable", map[string]any{}, nil); err != nil {
		p.t.Fatalf("Page.enable: %v", err)
	}
	if err := p.call(p.session, "Page.navigate", map[string]any{"url": url}, nil); err != nil {
		p.t.Fatalf("navigate to %s: %v", url, err)
	}
	p.waitEvent("Page.loadEventFired")
}

// waitEvent waits for the page's event method.
func (p *Page) waitEvent(method string) {
	p.t.Helper()
	timeout := time.After(CallTimeout)
	for {
		select {
		case e := <-p.events:
			if e.Method == method && e.SessionID == p.session {
				return
			}
		case <-timeout:
			p.t.Fatalf("the page sent no %s within %s", method, CallTimeout)
		}
	}
}

// Eval evaluates the JavaScript expression in the page (awaiting it when it is a promise) and decodes
// its value into out (nil to drop it); a thrown error or a rejection fails the test.
func (p *Page) Eval(expr string, out any) {
	p.t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := p.call(p.session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &res)
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	if res.Exception != nil {
		p.t.Fatalf("evaluate %s: %s %s", expr, res.Exception.Text, res.Exception.Exception.Description)
	}
	if out != nil && len(res.Result.Value) > 0 {
		if err := json.Unmarshal(res.Result.Value, out); err != nil {
			p.t.Fatalf("decode the value of %s: %v (%s)", expr, err, res.Result.Value)
		}
	}
}

// WaitFor answers the value of the expression once it is truthy: it is checked at once and again on
// every change of the page's DOM (a MutationObserver), for up to timeout.
func (p *Page) WaitFor(expr string, timeout time.Duration, out any) {
	p.t.Helper()
	js := fmt.Sprintf(`new Promise(function (resolve, reject) {
  var done = false;
  function check() {
    if (done) return;
    var v; try { v = (%s); } catch (e) { return; }
    if (v) { done = true; obs.disconnect(); resolve(v); }
  }
  var obs = new MutationObserver(check);
  obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  setTimeout(function () { if (!done) { done = true; obs.disconnect(); reject(new Error('timed out waiting for: ' + %q)); } }, %d);
  check();
})`, expr, expr, timeout.Milliseconds())
	p.Eval(js, out)
}

// call sends one DevTools command and decodes its result into out.
func (p *Page) call(session, method string, params any, out any) error {
	p.mu.Lock()
	p.next++
	id := p.next
	ch := make(chan cdpReply, 1)
	p.waiting[id] = ch
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, err := json.Marshal(msg)
	if err == nil {
		_, err = p.w.Write(append(raw, 0))
	}
	p.mu.Unlock()
	if err != nil {
		return fmt.Errorf("send %s: %w", method, err)
	}
	ctx, cancel := context.WithTimeout(p.t.Context(), CallTimeout)
	defer cancel()
	select {
	case r := <-ch:
		if r.Error != nil {
			return fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: no answer within %s", method, CallTimeout)
	}
}

// read dispatches the browser's NUL-terminated messages: answers to their callers, events to events.
func (p *Page) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var msg struct {
			ID        int    `json:"id"`
			Method    string `json:"method"`
			SessionID string `json:"sessionId"`
			cdpReply
		}
		if json.Unmarshal(raw[:len(raw)-1], &msg) != nil {
			continue
		}
		if msg.ID == 0 {
			select {
			case p.events <- cdpEvent{Method: msg.Method, SessionID: msg.SessionID}:
			default: // events nobody waits for are dropped rather than blocking the reader
			}
			continue
		}
		p.mu.Lock()
		ch := p.waiting[msg.ID]
		delete(p.waiting, msg.ID)
		p.mu.Unlock()
		if ch != nil {
			ch <- msg.cdpReply
		}
	}
}
