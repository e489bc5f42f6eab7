// Page detail: find the page to link to, and take the anchor from the
// text a person selected. Results are built with textContent only.
const search = document.getElementById('target-search');
const results = document.getElementById('target-results');
const target = document.getElementById('target-id');
const anchor = document.getElementById('anchor');
let timer;
// asked counts the searches sent: an answer to an earlier one that comes
// late must not replace the results of what the person typed last.
let asked = 0;

function say(text) {
  const li = document.createElement('li');
  li.textContent = text;
  results.replaceChildren(li);
}

async function find(q) {
  const mine = ++asked;
  let pages;
  try {
    const res = await fetch(`/ui/search?q=${encodeURIComponent(q)}`, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
    if (mine !== asked) return;
    if (!res.ok) { say(`The search failed (${res.status}). Try again.`); return; }
    pages = await res.json();
  } catch {
    if (mine === asked) say('The search failed: the server did not answer. Try again.');
    return;
  }
  if (mine !== asked) return;
  results.replaceChildren();
  for (const p of pages) {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'secondary';
    b.textContent = `${p.title || p.id} — ${p.url}`;
    b.setAttribute('aria-label', `Link to ${p.title || p.id}`);
    b.addEventListener('click', () => {
      target.value = p.id;
      results.replaceChildren();
      anchor.focus();
    });
    li.append(b);
    results.append(li);
  }
  if (pages.length === 0) say('No page matches.');
}

if (search) {
  search.addEventListener('input', () => {
    clearTimeout(timer);
    const q = search.value.trim();
    if (q.length < 2) { asked++; results.replaceChildren(); return; }
    timer = setTimeout(() => find(q), 200);
  });
  search.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') { e.preventDefault(); find(search.value.trim()); }
  });
}

const use = document.getElementById('use-selection');
const text = document.getElementById('page-text');
if (use) {
  use.addEventListener('click', () => {
    const sel = window.getSelection();
    const chosen = sel ? sel.toString().replace(/\s+/g, ' ').trim() : '';
    if (chosen && text.contains(sel.anchorNode)) {
      anchor.value = chosen.slice(0, 200);
      anchor.focus();
    }
  });
}
