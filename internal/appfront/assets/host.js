// The host page of an app: it loads the app in a sandboxed iframe and answers the SDK's messages. It
// forwards only allowlisted methods with well-shaped params (the server checks them again, with the
// viewer's cookie, against the app's sharing and the manifest's permissions) and performs the host
// methods (setContext, copy, openExternal, navigate, sign-in) itself. Its chat panel, outside the frame,
// is where the person talks to the agent (prefillChat, askChat, chat.prompt) and confirms or rejects
// the transactions the app prepares (confirmTransaction): the app can neither see nor press its buttons.
(function () {
  'use strict';
  var cfg = JSON.parse(document.body.dataset.config);
  var frame = document.getElementById('svc-app');
  var ctxOut = document.getElementById('svc-context');
  var status = document.getElementById('svc-status');
  var viewerCtx = null;

  function fail(code, message, extra) {
    var e = { code: code, message: message };
    Object.keys(extra || {}).forEach(function (k) { e[k] = extra[k]; });
    return e;
  }

  function isPlain(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }

  function typeOk(kind, v) {
    switch (kind) {
      case 'string': return typeof v === 'string';
      case 'number': return typeof v === 'number' && isFinite(v);
      case 'boolean': return typeof v === 'boolean';
      case 'object': return isPlain(v);
      case 'any': return v !== undefined && typeof v !== 'function';
    }
    return false;
  }

  // check answers the refusal of a malformed message, or null when it may be performed.
  function check(msg) {
    if (!isPlain(msg) || (typeof msg.id !== 'number' && typeof msg.id !== 'string')) return fail('invalid_request', 'a message is {id, method, params}');
    if (typeof msg.method !== 'string' || !Object.prototype.hasOwnProperty.call(cfg.methods, msg.method)) {
      return fail('invalid_request', 'unknown method ' + String(msg.method), { param: 'method' });
    }
    var params = msg.params === undefined ? {} : msg.params;
    if (!isPlain(params)) return fail('invalid_request', 'params must be an object', { param: 'params' });
    var spec = cfg.methods[msg.method].params;
    var keys = Object.keys(params);
    for (var i = 0; i < keys.length; i++) {
      var k = keys[i];
      if (!Object.prototype.hasOwnProperty.call(spec, k)) return fail('invalid_request', 'params.' + k + ' is not a field of ' + msg.method, { param: 'params.' + k });
      if (!typeOk(spec[k], params[k])) return fail('invalid_request', 'params.' + k + ' must be a ' + spec[k], { param: 'params.' + k });
    }
    return null;
  }

  function api(path, init) {
    init = init || {};
    init.credentials = 'same-origin';
    init.headers = Object.assign({ 'Content-Type': 'application/json' }, init.headers || {});
    return fetch(cfg.base + path, init).then(function (res) {
      return res.json().then(function (body) {
        if (!body.ok) {
          var e = body.error || {};
          e.status = res.status;
          throw e;
        }
        return body;
      });
    });
  }

  function forward(method, params) {
    return api('api/call', { method: 'POST', body: JSON.stringify({ method: method, params: params }) }).then(function (b) { return b.result; });
  }

  // hostCall performs one of the page's own actions (never one the frame asked for by name).
  function hostCall(method, params) {
    return api('api/host', { method: 'POST', body: JSON.stringify({ method: method, params: params }) }).then(function (b) { return b.result; });
  }

  var chat = document.getElementById('svc-chat');
  var chatLog = document.getElementById('svc-chat-log');
  var chatInput = document.getElementById('svc-chat-input');
  var confirmBox = document.getElementById('svc-confirm');
  var pendingConfirm = null;

  function openChat() { chat.hidden = false; }

  function say(who, text) {
    var p = document.createElement('p');
    p.className = who;
    p.textContent = text;
    chatLog.appendChild(p);
    chatLog.scrollTop = chatLog.scrollHeight;
    return p;
  }

  var jobDone = { succeeded: true, failed: true, cancelled: true, awaiting_confirmation: true };

  // follow polls the agent job until it ends and writes its answer into line.
  function follow(jobId, line) {
    hostCall('chat.job', { jobId: jobId }).then(function (job) {
      if (!jobDone[job.status]) { setTimeout(function () { follow(jobId, line); }, 1000); return; }
      line.className = job.status === 'succeeded' ? 'agent' : 'error';
      line.textContent = job.answer || job.error || ('the agent job is ' + job.status);
    }, function (err) { line.className = 'error'; line.textContent = (err && err.message) || 'the agent job could not be read'; });
  }

  // sendPrompt asks the agent (chat.prompt, checked by the server) and shows its answer when it comes.
  function sendPrompt(prompt) {
    openChat();
    say('you', prompt);
    var line = say('agent', '…');
    return forward('chat.prompt', { prompt: prompt }).then(function (job) {
      line.dataset.job = job.jobId;
      follow(job.jobId, line);
      return job;
    }, function (err) { line.className = 'error'; line.textContent = (err && err.message) || 'the prompt was refused'; throw err; });
  }

  document.getElementById('svc-chat-close').addEventListener('click', function () { chat.hidden = true; });
  document.getElementById('svc-chat-send').addEventListener('click', function () {
    var text = chatInput.value.trim();
    if (!text) return;
    chatInput.value = '';
    sendPrompt(text).catch(function () {});
  });

  function showConfirm(c) {
    document.getElementById('svc-confirm-description').textContent = c.description || '';
    document.getElementById('svc-confirm-from').textContent = (c.wallet && c.wallet.address) || '';
    document.getElementById('svc-confirm-to').textContent = c.tx.to;
    document.getElementById('svc-confirm-value').textContent = c.tx.value || '0';
    var data = c.tx.data || '0x';
    document.getElementById('svc-confirm-data').textContent = data.length > 74 ? data.slice(0, 74) + '… (' + ((data.length - 2) / 2) + ' bytes)' : data;
    openChat();
    confirmBox.hidden = false;
  }

  // confirmTransaction has the server check the transaction, shows it with Confirm and Reject, and
  // answers once the person decides: Confirm has the server send it, Reject sends nothing.
  function confirmTransaction(params) {
    if (pendingConfirm) return Promise.reject(fail('conflict', 'another transaction is waiting for confirmation'));
    return forward('confirmTransaction', params).then(function (c) {
      showConfirm(c);
      return new Promise(function (resolve, reject) { pendingConfirm = { c: c, resolve: resolve, reject: reject }; });
    });
  }

  function decide(confirmed) {
    var p = pendingConfirm;
    if (!p) return;
    pendingConfirm = null;
    confirmBox.hidden = true;
    if (!confirmed) {
      say('you', 'Rejected the transaction to ' + p.c.tx.to + '.');
      p.resolve({ status: 'rejected' });
      return;
    }
    var line = say('agent', 'Sending the transaction to ' + p.c.tx.to + '…');
    hostCall('transaction.confirm', { token: p.c.token }).then(function (r) {
      line.textContent = 'Transaction ' + r.transactionId + ': ' + r.status + (r.hash ? ' (' + r.hash + ')' : '');
      p.resolve(r);
    }, function (err) {
      line.className = 'error';
      line.textContent = (err && err.message) || 'the transaction was not sent';
      p.reject(err && err.code ? err : fail('internal', String(err)));
    });
  }
  document.getElementById('svc-confirm-yes').addEventListener('click', function () { decide(true); });
  document.getElementById('svc-confirm-no').addEventListener('click', function () { decide(false); });

  function loadCtx() {
    return forward('ctx', {}).then(function (c) { viewerCtx = c; return c; });
  }

  function send(data) { frame.contentWindow.postMessage(data, '*'); }

  function emit(name) { send({ event: name, ctx: viewerCtx }); }

  function showContext(context) {
    ctxOut.textContent = JSON.stringify(context);
    return { ok: true };
  }

  function openExternal(p) {
    if (!/^https?:\/\//i.test(p.url)) throw fail('invalid_request', 'openExternal takes an http(s) URL', { param: 'params.url' });
    if (!window.confirm('This app wants to open ' + p.url + '. Open it?')) return { opened: false };
    window.open(p.url, '_blank', 'noopener,noreferrer');
    return { opened: true };
  }

  function navigate(p) {
    if (!/^\/(?!\/)/.test(p.path)) throw fail('invalid_request', 'navigate takes a path on this host (starting with one /)', { param: 'params.path' });
    window.location.assign(p.path);
    return { navigated: true };
  }

  function siweMessage(n, address) {
    return n.domain + ' wants you to sign in with your Ethereum account:\n' + address + '\n\nSign in to ' + cfg.title + '.\n\n' +
      'URI: ' + window.location.origin + '\nVersion: 1\nChain ID: ' + n.chainId + '\nNonce: ' + n.nonce + '\nIssued At: ' + new Date().toISOString();
  }

  // signIn is SIWE with the browser's wallet: nonce, personal_sign, verify, then the app's viewer cookie.
  function signIn() {
    if (viewerCtx && viewerCtx.isAuthenticated) return Promise.resolve(viewerCtx);
    if (!window.ethereum) {
      return Promise.reject(fail('unauthenticated', 'sign in needs a browser wallet (window.ethereum); the owner opens a private app with `svc apps open <slug>`'));
    }
    var address;
    return window.ethereum.request({ method: 'eth_requestAccounts' }).then(function (accounts) {
      address = accounts[0];
      return fetch('/auth/siwe/nonce', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }).then(function (r) { return r.json(); });
    }).then(function (n) {
      var message = siweMessage(n, address);
      return window.ethereum.request({ method: 'personal_sign', params: [message, address] }).then(function (signature) {
        return fetch('/auth/siwe/verify', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ message: message, signature: signature }) });
      });
    }).then(function (r) { return r.json(); }).then(function (ses) {
      if (!ses.ok) throw ses.error;
      return api('api/session', { method: 'POST', headers: { Authorization: 'Bearer ' + ses.token }, body: '{}' });
    }).then(loadCtx).then(function (c) { emit('refresh'); return c; });
  }

  var hostMethods = {
    'setContext': function (p) { return showContext(p.context || {}); },
    'copy': function (p) { return navigator.clipboard.writeText(String(p.text || '')).then(function () { return { copied: true }; }); },
    'openExternal': openExternal,
    'navigate': navigate,
    'auth.requireSignIn': signIn,
    'prefillChat': function (p) {
      openChat();
      chatInput.value = String(p.prompt || '');
      chatInput.focus();
      return { opened: true };
    },
    'askChat': function (p) {
      if (!p.prompt || !String(p.prompt).trim()) throw fail('invalid_request', 'params.prompt is required', { param: 'params.prompt' });
      return sendPrompt(String(p.prompt)).then(function (job) { return { opened: true, jobId: job.jobId }; });
    }
  };

  function perform(msg) {
    var method = msg.method, params = msg.params === undefined ? {} : msg.params;
    if (cfg.methods[method].where === 'host') {
      return new Promise(function (resolve) { resolve(hostMethods[method](params)); });
    }
    if (method === 'confirmTransaction') return confirmTransaction(params);
    return forward(method, params);
  }

  window.addEventListener('message', function (event) {
    if (event.source !== frame.contentWindow) return; // only the app's own frame speaks to this page
    var msg = event.data;
    if (isPlain(msg) && msg.hello === true) { helloed(); return; }
    var refusal = check(msg);
    if (refusal) {
      if (isPlain(msg) && msg.id !== undefined) send({ id: msg.id, error: refusal });
      return;
    }
    perform(msg).then(function (result) { send({ id: msg.id, result: result === undefined ? null : result }); },
      function (err) { send({ id: msg.id, error: err && err.code ? err : fail('internal', String(err && err.message || err)) }); });
  });

  document.addEventListener('securitypolicyviolation', function (e) {
    status.textContent = 'blocked by this page\'s policy: ' + e.violatedDirective + ' ' + e.blockedURI;
  });

  // The SDK says hello as the frame's first script runs; ready follows once the viewer's ctx is known.
  var helloed;
  var loaded = new Promise(function (resolve) { helloed = resolve; });
  frame.src = cfg.frame;
  Promise.all([loadCtx(), loaded]).then(function () { status.textContent = ''; emit('ready'); },
    function (err) { status.textContent = (err && err.message) || 'the app could not be opened'; });
})();
