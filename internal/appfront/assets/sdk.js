// The svc frontend SDK (seed 002 "App surfaces"), injected as the first script of an app's index.html.
// The app runs in an iframe sandboxed with allow-scripts only: it cannot reach the network (the frame's
// Content-Security-Policy), and every call below is a postMessage to the host page, answered by the
// host page or by the server after checks the app cannot bypass.
(function () {
  'use strict';
  var parentWindow = window.parent;
  var target = window.location.origin; // the host page's origin: the frame's URL is on its host
  var pending = {};
  var nextId = 1;
  var listeners = { ready: [], refresh: [], theme: [] };
  var isReady = false;

  function call(method, params) {
    return new Promise(function (resolve, reject) {
      var id = nextId++;
      pending[id] = { resolve: resolve, reject: reject };
      parentWindow.postMessage({ id: id, method: method, params: params || {} }, target);
    });
  }

  // defined keeps the fields that are set: the host page refuses undefined params.
  function defined(obj) {
    var out = {};
    Object.keys(obj).forEach(function (k) { if (obj[k] !== undefined) out[k] = obj[k]; });
    return out;
  }

  function failure(error) {
    var err = new Error((error && error.message) || 'the call failed');
    err.code = error && error.code;
    err.status = error && error.status;
    err.param = error && error.param;
    err.details = error && error.details;
    return err;
  }

  function emit(name, payload) {
    (listeners[name] || []).forEach(function (fn) {
      try { fn(payload); } catch (e) { setTimeout(function () { throw e; }); }
    });
  }

  function setCtx(ctx) {
    Object.keys(ctx || {}).forEach(function (k) { svc.ctx[k] = ctx[k]; });
    svc.wallet.address = svc.ctx.walletAddress;
  }

  window.addEventListener('message', function (event) {
    if (event.source !== parentWindow) return;
    var msg = event.data;
    if (!msg || typeof msg !== 'object') return;
    if (msg.id !== undefined && pending[msg.id]) {
      var p = pending[msg.id];
      delete pending[msg.id];
      if (msg.error) p.reject(failure(msg.error)); else p.resolve(msg.result);
      return;
    }
    if (typeof msg.event === 'string' && listeners[msg.event]) {
      setCtx(msg.ctx);
      if (msg.event === 'ready') isReady = true;
      emit(msg.event, svc.ctx);
    }
  });

  // runScript resolves with the script's return value; a failed run (or one still going after the
  // server's wait) rejects with its error, the run in err.run.
  function runScript(name, args) {
    return call('scripts.run', defined({ name: name, args: args })).then(function (run) {
      if (run.status === 'succeeded') return run.result;
      var err = new Error(run.error || 'script run ' + run.id + ' is ' + run.status);
      err.code = run.status === 'failed' ? 'script_failed' : 'script_running';
      err.run = run;
      throw err;
    });
  }
  function unsupported(name) { return function () { return call(name, {}); }; }

  var svc = {
    ctx: { slug: '', walletAddress: null, theme: 'light', isPublic: false, isCompact: false, isAuthenticated: false },
    on: function (name, fn) {
      if (!listeners[name]) throw new Error('svc.on: unknown event ' + name + ' (ready, refresh or theme)');
      listeners[name].push(fn);
      if (name === 'ready' && isReady) setTimeout(function () { fn(svc.ctx); });
    },
    wallet: { address: null, get: function () { return call('wallet'); } },
    auth: {
      get isAuthenticated() { return !!svc.ctx.isAuthenticated; },
      requireSignIn: function () { return call('auth.requireSignIn'); }
    },
    invokeScript: runScript,
    runScript: runScript,
    run: runScript,
    scripts: { run: runScript, invoke: runScript },
    appKV: {
      // get resolves null for a key never set (the server's not_found naming that key).
      get: function (key) {
        return call('appKV.get', { key: key }).catch(function (err) {
          if (err.code === 'not_found' && err.details && err.details.key === key) return null;
          throw err;
        });
      },
      set: function (key, value) { return call('appKV.set', { key: key, value: value }); },
      list: function () { return call('appKV.list'); },
      delete: function (key) { return call('appKV.delete', { key: key }); }
    },
    prefillChat: function (prompt) { return call('prefillChat', { prompt: prompt }); },
    askChat: function (prompt) { return call('askChat', { prompt: prompt }); },
    chat: {
      prefill: function (prompt) { return call('prefillChat', { prompt: prompt }); },
      ask: function (prompt) { return call('askChat', { prompt: prompt }); },
      prompt: function (prompt) { return call('chat.prompt', { prompt: prompt }); }
    },
    // confirmTransaction({tx: {to, data?, value?, chainId?}, description?}) (or the bare tx) resolves
    // {status: confirmed|pending_approval|rejected|queued|broadcast|failed, transactionId, hash?} once the
    // owner has pressed Confirm or Reject on the host page's chat panel ({status: 'rejected'}).
    confirmTransaction: function (req) {
      if (req && typeof req.tx === 'object') return call('confirmTransaction', defined({ tx: req.tx, description: req.description }));
      return call('confirmTransaction', { tx: req });
    },
    x402: {
      fetch: function (url, opts) {
        opts = opts || {};
        var body = opts.body;
        if (body !== undefined && typeof body !== 'string') body = JSON.stringify(body);
        return call('x402.fetch', defined({ url: url, method: opts.method, body: body, headers: opts.headers, maxPaymentUsd: opts.maxPaymentUsd }));
      }
    },
    installSkill: function (name, owner) {
      var p = name !== null && typeof name === 'object' ? name : { name: name, owner: owner };
      return call('installSkill', defined({ name: p.name, owner: p.owner == null ? undefined : p.owner }));
    },
    openExternal: function (url) { return call('openExternal', { url: url }); },
    copy: function (text) { return call('copy', { text: text }); },
    navigate: function (path) { return call('navigate', { path: path }); },
    secrets: {
      status: unsupported('secrets.status'),
      requestSetup: function (key) { return call('secrets.requestSetup', { key: key }); }
    },
    setContext: function (context) { return call('setContext', { context: context }); }
  };
  Object.defineProperty(window, 'svc', { value: svc, writable: false, configurable: false });
  parentWindow.postMessage({ hello: true }, target);
})();
