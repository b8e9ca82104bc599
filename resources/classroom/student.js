// Attention Lab classroom page. Talks only to the app that served it; all
// server and student text reaches the page through textContent, never as HTML.
(() => {
  'use strict';
  const S = {
    en: {
      connecting: 'Connecting…', reconnecting: 'Reconnecting…',
      students: n => n === 1 ? '1 student connected' : n + ' students connected',
      waiting: "Waiting for the teacher's question", yourAnswer: 'Your answer',
      sending: 'Sending…', sent: 'Sent — you can change it until the reveal',
      right: 'Right answer', youAnswered: 'You answered', noAnswer: 'You did not answer',
      correct: 'Correct!', wrong: 'Not this time', ended: 'The session has ended', badCode: 'Wrong join code',
      typeCode: 'Type the join code shown on the projector', joinLabel: 'Join code', join: 'Join',
      full: 'The class is full — trying again…',
      send: 'Send', placeholder: 'e.g. 0.42', notNumber: 'Please type a number', sign: 'Change sign',
      toggle: '中文', colon: ': '
    },
    zh_CN: {
      connecting: '正在连接…', reconnecting: '正在重新连接…',
      students: n => '已连接 ' + n + ' 名学生',
      waiting: '等待老师提问', yourAnswer: '你的答案',
      sending: '正在提交…', sent: '已提交——揭晓前可以修改',
      right: '正确答案', youAnswered: '你的答案是', noAnswer: '你没有作答',
      correct: '答对了！', wrong: '这次没答对', ended: '课堂互动已结束', badCode: '加入码不对',
      typeCode: '请输入投影上显示的加入码', joinLabel: '加入码', join: '加入',
      full: '课堂已满——稍后重试…',
      send: '提交', placeholder: '例如 0.42', notNumber: '请输入一个数字', sign: '切换正负号',
      toggle: 'EN', colon: '：'
    }
  };
  // The server's refusals (core/session/classsession.cpp) in Chinese; any
  // other text is shown as it came.
  const ZH_ERRORS = {
    'the answer has been revealed': '答案已经揭晓', 'that question is not open': '这道题已经结束',
    'not one of the choices': '不是可选的答案', 'not a number': '不是一个数字', 'say hello first': '请重新打开页面',
    'message too long': '消息太长', 'not a JSON object': '消息格式不对', 'unknown message type': '消息格式不对',
    'bad device token': '设备标识无效', 'one device per connection': '每个连接只能有一台设备',
    'too many devices in this session': '本次互动的设备太多'
  };
  const E = {}; // the page's elements by id
  document.querySelectorAll('[id]').forEach(e => { E[e.id] = e; });
  const params = new URLSearchParams(location.search);
  const code = params.get('code') || '';
  const enc = encodeURIComponent;

  // localStorage can be blocked (private mode): the token then lasts for this visit only.
  const load = k => { try { return localStorage.getItem(k); } catch (e) { return null; } };
  const save = (k, v) => { try { localStorage.setItem(k, v); } catch (e) { /* memory only */ } };

  let device = load('attention-lab-device');
  if (!/^[A-Za-z0-9_-]{22}$/.test(device || '')) {
    const b = crypto.getRandomValues(new Uint8Array(16)); // works on plain http, unlike randomUUID
    device = btoa(String.fromCharCode(...b)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    save('attention-lab-device', device);
  }

  // Language: ?lang=, then the student's toggle, then the phone; the
  // server's hint counts only when none of these is English or Chinese.
  const norm = l => { l = String(l || '').toLowerCase(); return l.startsWith('zh') ? 'zh_CN' : l.startsWith('en') ? 'en' : ''; };
  let fixedLang = norm(params.get('lang')) || norm(load('attention-lab-lang')) || norm(navigator.language);
  let lang = fixedLang || 'en';

  // phase: connecting | idle | question | ended | badcode
  const st = { phase: 'connecting', q: null, yours: null, reveal: null, pending: null, students: null, note: '' };
  let ws = null, timer = 0, attempt = 0, stopped = false, builtKey = '', hiddenAt = 0, toastTimer = 0;

  const pick = t => typeof t === 'string' ? t : !t || typeof t !== 'object' ? ''
    : [lang, 'en', 'zh_CN'].map(k => t[k]).find(s => typeof s === 'string') || '';
  const isNum = x => typeof x === 'number' && isFinite(x);
  const fmt = x => { const d = st.q && st.q.decimals; return Number.isInteger(d) && d >= 0 && d <= 10 ? x.toFixed(d) : String(x); };
  const letter = i => i < 26 ? String.fromCharCode(65 + i) : String(i + 1);
  const el = (tag, cls, text) => { const e = document.createElement(tag); e.className = cls; e.textContent = text || ''; return e; };
  const valueOf = a => a.choice !== undefined ? a.choice : a.number;

  // Accepts "0,42" and what Chinese keyboards type: full-width digits and "。".
  function parseNum(s) {
    s = String(s).replace(/[\uFF01-\uFF5E]/g, c => String.fromCharCode(c.charCodeAt(0) - 0xFEE0))
      .replace(/\u3002/g, '.').replace(/\u2212/g, '-').replace(/\s+/g, '');
    if (!s.includes('.')) s = s.replace(',', '.');
    if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)) return null;
    const x = Number(s);
    return isFinite(x) ? x : null;
  }

  // ---- rendering: all drawn from `st`, so the language toggle just redraws.
  function statusText(T) {
    if (ws && ws.readyState === 1) return st.students === null ? '' : T.students(st.students);
    return attempt > 0 ? T.reconnecting : T.connecting;
  }

  function render() {
    const T = S[lang], q = st.q, show = st.phase === 'question' && q;
    document.documentElement.lang = lang === 'zh_CN' ? 'zh-CN' : 'en';
    E.lang.textContent = T.toggle;
    // Until the server first replies, the big message carries the connection state.
    E.status.textContent = stopped || st.phase === 'connecting' ? '' : statusText(T);
    E.msg.hidden = !!show;
    E.q.hidden = !show;
    E.join.hidden = st.phase !== 'badcode';
    E.joinlabel.textContent = T.joinLabel;
    E.joinbtn.textContent = T.join;
    if (!show) {
      E.msg.textContent = { connecting: statusText(T) || T.connecting, ended: T.ended, full: T.full,
                            badcode: code ? T.badCode : T.typeCode }[st.phase] || T.waiting;
      return;
    }
    const key = q.question + '|' + q.version + '|' + lang;
    if (key !== builtKey) { build(q, T); builtKey = key; }
    update(T);
  }

  function build(q, T) {
    const text = pick(q.text), img = E.qimg, box = E.choices, isChoice = q.kind === 'choice';
    E.qtext.textContent = text;
    if (q.image === true) {
      const src = `map.png?code=${enc(code)}&q=${enc(q.question)}&v=${enc(q.version)}`;
      img.alt = text;
      if (img.getAttribute('src') !== src) img.src = src;
      img.hidden = img.dataset.failed === src;
    } else {
      img.hidden = true;
      img.removeAttribute('src');
    }
    E.yourlabel.textContent = T.yourAnswer;
    box.textContent = '';
    box.hidden = !isChoice;
    E.numform.hidden = isChoice;
    if (isChoice) {
      (Array.isArray(q.choices) ? q.choices : []).forEach((c, i) => {
        const b = el('button', 'choice');
        b.type = 'button';
        b.append(el('span', 'key', letter(i)), el('span', 'label', pick(c)));
        b.addEventListener('click', () => answer({ choice: i }));
        box.append(b);
      });
    } else {
      E.num.placeholder = T.placeholder;
      E.send.textContent = T.send;
      E.sign.title = T.sign;
      E.sign.setAttribute('aria-label', T.sign);
    }
  }

  function update(T) {
    const q = st.q, r = st.reveal, isChoice = q.kind === 'choice';
    const yours = r && r.yours !== undefined ? r.yours : st.yours;
    const shown = st.pending ? valueOf(st.pending) : yours;
    const right = r && Array.isArray(r.answer) ? r.answer : [];
    [...E.choices.children].forEach((b, i) => {
      const mine = shown === i, ok = right.includes(i);
      b.disabled = !!r;
      b.setAttribute('aria-pressed', String(mine));
      b.classList.toggle('mine', mine && !r);
      b.classList.toggle('right', !!r && ok);
      b.classList.toggle('wrong', !!r && mine && !ok);
    });
    E.num.disabled = E.send.disabled = E.sign.disabled = !!r;
    E.note.textContent = r ? '' : T[st.note] || '';
    E.note.className = st.note === 'notNumber' ? 'err' : '';
    E.result.hidden = !r;
    if (!r) return;

    const answered = yours !== null && yours !== undefined, choice = i => letter(i) + ' ' + pick((q.choices || [])[i]);
    let good, rightText, yourText;
    if (isChoice) {
      good = answered && right.includes(yours);
      rightText = right.map(choice).join(', ');
      yourText = answered ? choice(yours) : '';
    } else {
      const tol = isNum(r.tolerance) ? r.tolerance : 0;
      // A hair of slack: |0.43 - 0.42| is 0.010000000000000009 in floating point.
      good = isNum(yours) && isNum(r.number) && Math.abs(yours - r.number) <= tol + 1e-9 * Math.max(1, Math.abs(r.number));
      // The tolerance as it is (0.005), not at the answer's decimals (0.01).
      rightText = isNum(r.number) ? fmt(r.number) + (tol > 0 ? ' (± ' + String(+tol.toPrecision(2)) + ')' : '') : '';
      yourText = String(yours);
    }
    E.result.className = good ? 'ok' : answered ? 'bad' : '';
    E.verdict.textContent = good ? T.correct : answered ? T.wrong : T.noAnswer;
    E.rightline.textContent = T.right + T.colon + rightText;
    E.yourline.textContent = answered ? T.youAnswered + T.colon + yourText : '';
    E.yourline.hidden = !answered;
  }

  // ---- answers stay `pending` until acked, and are sent again after a reconnect.
  function answer(a) {
    if (!st.q || st.reveal) return;
    st.pending = { question: st.q.question, ...a };
    st.note = 'sending';
    sendPending();
    render();
  }
  function sendPending() {
    const p = st.pending;
    if (p && ws && ws.readyState === 1 && st.q && st.q.question === p.question) ws.send(JSON.stringify({ type: 'answer', ...p }));
  }

  function onMessage(data) {
    let m;
    try { m = JSON.parse(data); } catch (e) { return; }
    if (!m || typeof m !== 'object') return;
    if (isNum(m.students)) st.students = m.students;
    if (!fixedLang && norm(m.language)) lang = norm(m.language);
    const same = st.q && m.question === st.q.question;
    switch (m.type) {
      case 'welcome':
        if (st.phase === 'connecting' || st.phase === 'full') st.phase = 'idle';
        break;
      case 'idle':
        Object.assign(st, { phase: 'idle', q: null, reveal: null, pending: null, note: '' });
        break;
      case 'question':
        if (!same) { st.pending = null; st.note = ''; E.num.value = ''; }
        Object.assign(st, { phase: 'question', q: m, reveal: null, yours: m.yours === undefined ? null : m.yours });
        if (st.pending) sendPending(); // answered while the socket was down
        else if (st.yours !== null) {
          st.note = 'sent';
          if (m.kind !== 'choice' && !E.num.value) E.num.value = String(st.yours);
        }
        break;
      case 'ack':
        if (!same) break;
        st.yours = 'choice' in m ? m.choice : m.number;
        if (st.pending && valueOf(st.pending) === st.yours) { st.pending = null; st.note = 'sent'; }
        break;
      case 'reveal':
        if (same) Object.assign(st, { reveal: m, pending: null, note: '' });
        break;
      case 'error':
        toast(typeof m.message === 'string' ? (lang === 'zh_CN' && ZH_ERRORS[m.message]) || m.message : '');
        break;
      case 'ended':
        return stop('ended');
    }
    render();
  }

  function toast(text) {
    const t = E.toast;
    t.textContent = text;
    t.hidden = !text;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; }, 5000);
  }

  // ---- connection
  function connect() {
    if (stopped || ws) return;
    clearTimeout(timer);
    let s;
    if (!location.host) return retry(); // opened from a file: nothing to reach
    try {
      s = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws?code=${enc(code)}`);
    } catch (e) { return retry(); }
    ws = s;
    s.onopen = () => { attempt = 0; s.send(JSON.stringify({ type: 'hello', device })); render(); };
    s.onmessage = ev => { if (ws === s) onMessage(ev.data); };
    s.onclose = ev => {
      if (ws !== s) return; // a socket replaced on purpose
      ws = null;
      if (ev.code === 4001) stop('badcode');
      else { if (ev.code === 4002) st.phase = 'full'; retry(); } // full: a place may free
    };
    render();
  }
  function retry() { // 1 s, 2 s, 4 s, 8 s, then every 10 s
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(connect, Math.min(1000 * 2 ** attempt, 10000));
    attempt++;
    render();
  }
  function stop(phase) {
    stopped = true;
    clearTimeout(timer);
    st.phase = phase;
    if (ws) { const s = ws; ws = null; s.close(); }
    render();
  }
  function wake() {
    if (stopped) return;
    // A phone that slept a while can hold a socket that looks open but is dead: replace it.
    if (ws && ws.readyState === 1 && hiddenAt && Date.now() - hiddenAt > 30000) {
      const s = ws; ws = null; s.close(); attempt = Math.max(attempt, 1);
    }
    hiddenAt = 0;
    if (!ws) connect();
  }

  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') wake(); else hiddenAt = Date.now();
  });
  addEventListener('online', wake);
  addEventListener('pageshow', e => { if (e.persisted) wake(); });
  E.qimg.addEventListener('error', e => { e.target.dataset.failed = e.target.getAttribute('src'); e.target.hidden = true; });
  E.lang.addEventListener('click', () => {
    lang = fixedLang = lang === 'en' ? 'zh_CN' : 'en';
    save('attention-lab-lang', lang);
    render();
  });
  E.numform.addEventListener('submit', e => {
    e.preventDefault();
    const x = parseNum(E.num.value);
    if (x === null) { st.note = 'notNumber'; render(); } else answer({ number: x });
  });
  E.sign.addEventListener('click', () => { // iOS's decimal keypad has no minus key
    const v = E.num.value.trim();
    E.num.value = v[0] === '-' ? v.slice(1) : '-' + v;
  });

  if (code) connect(); else stop('badcode');
})();
