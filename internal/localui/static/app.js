// The Slack stand-in's page: live parts over server-sent events, and people's actions as POSTs.
'use strict';

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
const me = () => document.body.dataset.as;
const here = () => document.body.dataset.channel;

// ---- dates --------------------------------------------------------------------------------

const pad = n => String(n).padStart(2, '0');
const ordinal = n => n + (n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th');
const monthName = (d, style) => d.toLocaleDateString('en-US', { month: style });
const dayName = d => d.toLocaleDateString('en-US', { weekday: 'long' });
const clock = (d, secs) => d.toLocaleTimeString([], secs ? { hour: 'numeric', minute: '2-digit', second: '2-digit' } : { hour: 'numeric', minute: '2-digit' });

function relativeDay(d) {
  const day = x => new Date(x.getFullYear(), x.getMonth(), x.getDate()).getTime();
  const diff = Math.round((day(d) - day(new Date())) / 86400000);
  return { '-1': 'yesterday', '0': 'today', '1': 'tomorrow' }[diff];
}

function ago(d) {
  const secs = Math.round((d.getTime() - Date.now()) / 1000);
  const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  for (const [unit, size] of [['year', 31536000], ['month', 2592000], ['day', 86400], ['hour', 3600], ['minute', 60]]) {
    if (Math.abs(secs) >= size) return rtf.format(Math.round(secs / size), unit);
  }
  return rtf.format(secs, 'second');
}

// Slack's <!date^…> format tokens (docs.slack.dev, "Formatting text for app surfaces"); a
// "pretty" word opening the text is capitalised.
const capital = (s, first) => (s && first ? s[0].toUpperCase() + s.slice(1) : s);
const dateTokens = {
  date_num: d => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`,
  date_slash: d => `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${d.getFullYear()}`,
  date: d => `${monthName(d, 'long')} ${ordinal(d.getDate())}, ${d.getFullYear()}`,
  date_short: d => `${monthName(d, 'short')} ${d.getDate()}, ${d.getFullYear()}`,
  date_long: d => `${dayName(d)}, ${monthName(d, 'long')} ${ordinal(d.getDate())}, ${d.getFullYear()}`,
  date_long_full: d => `${monthName(d, 'long')} ${d.getDate()}, ${d.getFullYear()}`,
  date_pretty: (d, first) => capital(relativeDay(d), first) || dateTokens.date(d),
  date_short_pretty: (d, first) => capital(relativeDay(d), first) || dateTokens.date_short(d),
  date_long_pretty: (d, first) => capital(relativeDay(d), first) || dateTokens.date_long(d),
  day_divider_pretty: (d, first) => capital(relativeDay(d), first) ||
    (d.getFullYear() === new Date().getFullYear() ? `${dayName(d)}, ${monthName(d, 'long')} ${ordinal(d.getDate())}` : dateTokens.date_long(d)),
  time: d => clock(d, false),
  time_secs: d => clock(d, true),
  ago: d => ago(d),
};

function formatDates(root) {
  for (const t of $$('time.sdate', root)) {
    const d = new Date(Number(t.dataset.unix) * 1000);
    t.textContent = t.dataset.format.replace(/\{(\w+)\}/g, (all, name, at) => dateTokens[name] ? dateTokens[name](d, at === 0) : all);
    t.title = d.toString();
  }
  for (const t of $$('time.msgtime', root)) {
    const d = new Date(Number(t.dataset.ts.split('.')[0]) * 1000);
    t.textContent = clock(d, false);
    t.title = d.toString() + (t.dataset.updates ? ` · updated by the app ${t.dataset.updates}×` : '');
  }
  for (const t of $$('time.ltime', root)) {
    const d = new Date(t.getAttribute('datetime'));
    if (!isNaN(d)) { t.textContent = clock(d, true); t.title = d.toString(); }
  }
}

// ---- talking to the server ----------------------------------------------------------------

async function post(path, data) {
  let res;
  try {
    res = await fetch(path, { method: 'POST', body: new URLSearchParams(data), headers: { Accept: 'application/json' } });
  } catch (e) {
    return { ok: false, json: { error: 'The stand-in does not answer: ' + e.message } };
  }
  let json = {};
  try { json = await res.json(); } catch (e) { json = { error: res.status + ' ' + res.statusText }; }
  return { ok: res.ok, status: res.status, json };
}

function toast(text, kind) {
  const el = document.createElement('div');
  el.className = 'toast ' + (kind || 'error');
  el.setAttribute('role', kind === 'info' ? 'status' : 'alert');
  el.textContent = text;
  $('#toasts').append(el);
  setTimeout(() => el.remove(), 8000);
}

// ---- live parts ---------------------------------------------------------------------------

// morphChildren replaces the children of container by those of html, keeping the elements whose
// id and data-key did not change, and marking the others.
function morphChildren(container, html) {
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  const old = new Map($$(':scope > [id]', container).map(el => [el.id, el]));
  const first = container.children.length === 0 || $('.empty', container);
  const next = Array.from(tpl.content.children).map(el => {
    const prev = el.id && old.get(el.id);
    if (prev && prev.dataset.key === el.dataset.key) return prev;
    if (!first) el.classList.add(prev ? 'changed' : 'new');
    return el;
  });
  container.replaceChildren(...next);
}

const parts = {
  channels(f) { replaceIfChanged($('#channels'), f); },
  messages(f) {
    const box = $('#messages');
    if (box.dataset.key === f.key) return;
    const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
    morphChildren(box, f.html);
    box.dataset.key = f.key;
    formatDates(box);
    if (atBottom) box.scrollTop = box.scrollHeight;
  },
  home(f) { replaceIfChanged($('#home'), f); },
  modal(f) { showModal(f); },
  machines(f) {
    const sel = $('#state-machine');
    if (!sel || sel.dataset.key === f.key) return;
    const chosen = sel.value;
    sel.innerHTML = f.html;
    sel.dataset.key = f.key;
    if ($$('option', sel).some(o => o.value === chosen)) sel.value = chosen;
    else machineChosen(true);
    showSamples();
  },
  executions(f) {
    const box = $('#executions');
    if (!box || box.dataset.key === f.key) return;
    box.innerHTML = f.html;
    box.dataset.key = f.key;
    formatDates(box);
    refreshDetail();
  },
};

function replaceIfChanged(el, f) {
  if (!el || el.dataset.key === f.key) return;
  el.innerHTML = f.html;
  el.dataset.key = f.key;
  formatDates(el);
}

function listen() {
  const live = $('#live');
  const q = new URLSearchParams({ as: me(), c: here() });
  const es = new EventSource('/events?' + q);
  es.onopen = () => { live.textContent = '● live'; live.className = 'live on'; };
  es.onerror = () => { live.textContent = '○ reconnecting'; live.className = 'live off'; };
  for (const name of Object.keys(parts)) {
    es.addEventListener(name, e => parts[name](JSON.parse(e.data)));
  }
}

// ---- messages -----------------------------------------------------------------------------

// Slack's confirm dialog: the element's title, text and two buttons; it resolves true when the
// person confirms. Nothing is sent before that.
function confirmDialog(el) {
  return new Promise(resolve => {
    const d = document.createElement('div');
    d.className = 'confirm-dialog';
    d.setAttribute('role', 'alertdialog');
    const box = document.createElement('div');
    box.className = 'confirm-box';
    const title = document.createElement('h3');
    title.textContent = el.dataset.confirmTitle || 'Are you sure?';
    const text = document.createElement('p');
    text.className = 'confirm-text';
    text.textContent = el.dataset.confirm;
    const no = document.createElement('button');
    no.type = 'button'; no.className = 'btn confirm-no'; no.textContent = el.dataset.confirmNo || 'Cancel';
    const yes = document.createElement('button');
    yes.type = 'button'; yes.className = 'btn primary confirm-yes'; yes.textContent = el.dataset.confirmYes || 'Yes';
    const row = document.createElement('div');
    row.className = 'confirm-buttons';
    row.append(no, yes);
    box.append(title, text, row);
    d.append(box);
    const done = ok => { d.remove(); resolve(ok); };
    no.addEventListener('click', () => done(false));
    yes.addEventListener('click', () => done(true));
    document.body.append(d);
    yes.focus();
  });
}

// act sends a person's action on a message or their Home: a button, or an option picked in a
// menu (overflow or select), after the element's confirm dialog if it has one.
async function act(el, fields) {
  if (el.dataset.confirm && !(await confirmDialog(el))) return false;
  const msg = el.closest('[data-ts]');
  const data = msg
    ? { channel: msg.dataset.channel, ts: msg.dataset.ts, ephemeral: msg.dataset.ephemeral || 'false' }
    : { container: 'home' };
  el.disabled = true;
  el.classList.add('busy');
  const res = await post('/click', { as: me(), ...fields, ...data });
  el.disabled = false;
  el.classList.remove('busy');
  if (!res.ok) toast(res.json.error);
  return res.ok;
}

document.addEventListener('click', async e => {
  const toggle = e.target.closest('.b-overflow-toggle');
  for (const m of $$('.b-menu')) {
    if (!toggle || m !== toggle.nextElementSibling) m.hidden = true;
  }
  if (toggle) {
    toggle.nextElementSibling.hidden = !toggle.nextElementSibling.hidden;
    return;
  }
  const item = e.target.closest('.msg-body .b-menu-item, #home .b-menu-item');
  if (item && !item.disabled) {
    await act(item, { menu: item.dataset.menuId, option: item.dataset.option, block_id: item.dataset.blockId });
    return;
  }
  const button = e.target.closest('.msg-body button[data-action-id], #home button[data-action-id]');
  if (!button || button.disabled) return;
  if (button.dataset.url) window.open(button.dataset.url, '_blank', 'noopener');
  await act(button, { action_id: button.dataset.actionId, value: button.dataset.value });
});

document.addEventListener('change', async e => {
  const select = e.target.closest('.msg-body select.b-select, #home select.b-select');
  if (!select || !select.value) return;
  await act(select, { menu: select.dataset.menuId, option: select.value, block_id: select.dataset.blockId });
});

$('#composer')?.addEventListener('submit', async e => {
  e.preventDefault();
  const input = $('#composer-text');
  const text = input.value.trim();
  if (!text) return;
  input.disabled = true;
  const res = await post('/message', { as: me(), channel: here(), text });
  input.disabled = false;
  if (res.ok) input.value = ''; else toast(res.json.error);
  input.focus();
});

$('#as')?.addEventListener('change', e => {
  location.href = '/?' + new URLSearchParams({ as: e.target.value, c: here() });
});

// ---- the app's tabs ------------------------------------------------------------------------

// Opening the app's Home tab, or its Messages tab (the direct message), tells the app as Slack
// does (app_home_opened); the Home it publishes arrives live.
async function openAppTab() {
  if (here() === 'home') {
    const res = await post('/home', { as: me(), tab: 'home' });
    if (!res.ok) toast(res.json.error);
  } else if (/^D[UW]/.test(here())) {
    await post('/home', { as: me(), tab: 'messages' });
  }
}

// ---- the modal ----------------------------------------------------------------------------

function formValues(form) {
  const values = {};
  for (const el of form.elements) {
    if (!el.name) continue;
    if (el.type === 'radio' || el.type === 'checkbox') values[el.name + '=' + el.value] = el.checked;
    else values[el.name] = el.value;
  }
  return values;
}

function restoreValues(form, values) {
  for (const el of form.elements) {
    if (!el.name) continue;
    if (el.type === 'radio' || el.type === 'checkbox') {
      const k = el.name + '=' + el.value;
      if (k in values) el.checked = values[k];
    } else if (el.name in values) el.value = values[el.name];
  }
}

function showModal(f) {
  const box = $('#modal');
  if (box.dataset.key === f.key) return;
  const old = $('form.modal', box);
  const saved = old && { view: old.dataset.viewId, values: formValues(old) };
  box.innerHTML = f.html;
  box.dataset.key = f.key;
  const form = $('form.modal', box);
  if (!form) return;
  formatDates(form);
  if (saved && saved.view === form.dataset.viewId) restoreValues(form, saved.values);
  else $('input, textarea, select', form)?.focus();
}

function showErrors(form, errors) {
  for (const input of $$('.b-input', form)) {
    const text = errors[input.dataset.blockId] || '';
    input.classList.toggle('has-error', text !== '');
    $('.b-error', input).textContent = text;
  }
}

document.addEventListener('submit', async e => {
  const form = e.target.closest('form.modal');
  if (!form) return;
  e.preventDefault();
  const submit = $('button[type=submit]', form);
  submit.disabled = true;
  submit.classList.add('busy');
  const data = new URLSearchParams(new FormData(form));
  data.set('as', me());
  data.set('view_id', form.dataset.viewId);
  data.set('hash', form.dataset.hash);
  const res = await post('/submit', data);
  submit.disabled = false;
  submit.classList.remove('busy');
  const problem = $('.modal-error', form);
  problem.hidden = true;
  if (res.json.errors) showErrors(form, res.json.errors);
  else if (!res.ok) { problem.textContent = res.json.error; problem.hidden = false; }
});

async function closeModal() {
  const form = $('#modal form.modal');
  if (!form) return;
  const res = await post('/close', { as: me(), view_id: form.dataset.viewId });
  if (!res.ok) toast(res.json.error);
}

document.addEventListener('click', e => {
  if (e.target.closest('#modal [data-close]')) closeModal();
});
document.addEventListener('keydown', e => {
  if (e.key === 'Escape' && $('#modal form.modal')) closeModal();
});

// ---- executions ---------------------------------------------------------------------------

function samplesOf(option) {
  try { return JSON.parse(option?.dataset.samples || '[]'); } catch (e) { return []; }
}

function showSamples() {
  const box = $('#samples');
  const sel = $('#state-machine');
  if (!box || !sel) return;
  box.replaceChildren(...samplesOf(sel.selectedOptions[0]).map(s => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'btn small sample';
    b.textContent = s.Name;
    b.addEventListener('click', () => { $('#input').value = s.Input; });
    return b;
  }));
}

function machineChosen(fill) {
  const sel = $('#state-machine');
  if (!sel) return;
  const samples = samplesOf(sel.selectedOptions[0]);
  if (fill && samples.length) $('#input').value = samples[0].Input;
  showSamples();
}

$('#state-machine')?.addEventListener('change', () => machineChosen(true));

$('#start')?.addEventListener('submit', async e => {
  e.preventDefault();
  const form = e.target;
  const problem = $('#start-error');
  const button = $('#start-button');
  button.disabled = true;
  const res = await post('/start', new URLSearchParams(new FormData(form)));
  button.disabled = false;
  problem.hidden = res.ok;
  if (!res.ok) { problem.textContent = res.json.error; return; }
  $('#exec-name').value = '';
  toast('Started ' + res.json.arn.split(':').pop(), 'info');
  openDetail(res.json.arn);
});

let detailArn = '';

async function openDetail(arn) {
  detailArn = arn;
  await refreshDetail();
}

async function refreshDetail() {
  const box = $('#detail');
  if (!box || !detailArn) return;
  const arn = detailArn;
  let html;
  try {
    const res = await fetch('/execution?' + new URLSearchParams({ arn }));
    html = await res.text();
  } catch (e) { return; }
  if (arn !== detailArn) return;
  const open = new Set($$('details[open] > summary', box).map(s => s.textContent));
  box.innerHTML = html;
  for (const s of $$('details > summary', box)) if (open.has(s.textContent)) s.parentElement.open = true;
  box.hidden = false;
  formatDates(box);
  for (const row of $$('.exec', $('#executions'))) row.classList.toggle('selected', row.dataset.arn === arn);
}

document.addEventListener('click', async e => {
  const stop = e.target.closest('.exec-stop');
  if (stop) {
    stop.disabled = true;
    const res = await post('/stop', { arn: stop.dataset.arn });
    if (!res.ok) { stop.disabled = false; toast(res.json.error); }
    return;
  }
  const open = e.target.closest('.exec-open');
  if (open) { openDetail(open.dataset.arn); return; }
  if (e.target.closest('[data-close-detail]')) {
    detailArn = '';
    $('#detail').hidden = true;
    for (const row of $$('.exec.selected')) row.classList.remove('selected');
  }
});

// ---- start --------------------------------------------------------------------------------

formatDates(document);
machineChosen(true);
{
  const box = $('#messages');
  const target = location.hash && document.getElementById(location.hash.slice(1));
  if (target) target.scrollIntoView({ block: 'center' });
  else if (box) box.scrollTop = box.scrollHeight;
}
listen();
openAppTab();
