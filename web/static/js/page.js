// Page detail: find the page to link to, and take the anchor from the
// text a person selected. Results are built with textContent only.
const search = document.getElementById('target-search');
const results = document.getElementById('target-results');
const target = document.getElementById('target-id');
const anchor = document.getElementById('anchor');
let timer;

async function find(q) {
  const res = await fetch(`/ui/search?q=${encodeURIComponent(q)}`, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
  if (!res.ok) return;
  const pages = await res.json();
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
  if (pages.length === 0) {
    const li = document.createElement('li');
    li.textContent = 'No page matches.';
    results.append(li);
  }
}

if (search) {
  search.addEventListener('input', () => {
    clearTimeout(timer);
    const q = search.value.trim();
    if (q.length < 2) { results.replaceChildren(); return; }
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
