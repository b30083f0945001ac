import type { AppContext, Screen } from './app-context.js';
import { auditScreen } from './audit/audit-screen.js';
import { chunksScreen } from './chunks/chunks-screen.js';
import { finalizeScreen } from './finalize/finalize-screen.js';
import { libraryScreen } from './library/library-screen.js';
import { reviewScreen } from './review/review-screen.js';
import { parseRoute, type Route } from './router.js';
import { searchScreen } from './search/search-screen.js';
import { h } from './ui/dom.js';

const REVIEWER_SLOT = 'lectern.reviewer';

function mount(ctx: AppContext, route: Route): Screen {
  switch (route.screen) {
    case 'library':
      return libraryScreen(ctx);
    case 'review':
      return reviewScreen(ctx, route.jobId, route.params);
    case 'chunks':
      return chunksScreen(ctx, route.jobId);
    case 'finalize':
      return finalizeScreen(ctx, route.jobId);
    case 'audit':
      return auditScreen(ctx, route.jobId, route.params);
    case 'search':
      return searchScreen(ctx, route.jobId);
  }
}

function jobTabs(ctx: AppContext, route: Route): HTMLElement | null {
  if (route.screen === 'library') return null;
  const id = encodeURIComponent(route.jobId);
  const tabs: [string, string][] = [
    ['review', 'Review'],
    ['chunks', 'Chunks'],
    ['finalize', 'Finalize & export'],
    ['audit', 'Audit'],
  ];
  // Search and chat appear only on servers that have them (issues 4 and 5).
  if (ctx.caps.search || ctx.caps.chat) tabs.push(['search', 'Search & chat']);
  return h('nav', { class: 'tabs', 'aria-label': 'Job' }, ...tabs.map(([s, text]) => h('a', { href: `#/jobs/${id}/${s}`, class: s === route.screen ? 'active' : '', 'aria-current': s === route.screen ? 'page' : false }, text)));
}

/** The frame around every screen: brand, job tabs, reviewer name; swaps screens on hash changes. */
export function startShell(ctx: Omit<AppContext, 'navigate'>, root: HTMLElement): void {
  const app: AppContext = { ...ctx, navigate: (hash) => void (location.hash = hash) };
  const reviewer = h('input', { class: 'reviewer', 'aria-label': 'Reviewer name', placeholder: 'Your name (for the audit trail)', value: localStorage.getItem(REVIEWER_SLOT) ?? '' });
  ctx.api.setReviewer(reviewer.value);
  reviewer.addEventListener('change', () => {
    localStorage.setItem(REVIEWER_SLOT, reviewer.value.trim());
    ctx.api.setReviewer(reviewer.value);
  });
  reviewer.addEventListener('keydown', (e) => e.stopPropagation());
  const tabsSlot = h('div', { class: 'tabs-slot' });
  const main = h('main', { id: 'screen' });
  root.replaceChildren(h('header', { class: 'app-header' }, h('a', { href: '#/', class: 'brand' }, 'Lectern'), tabsSlot, reviewer), main);
  let screen: Screen | undefined;
  const show = () => {
    const route = parseRoute(location.hash);
    screen?.dispose();
    screen = mount(app, route);
    tabsSlot.replaceChildren(jobTabs(app, route) ?? '');
    main.replaceChildren(screen.element);
    main.dataset.screen = route.screen;
  };
  window.addEventListener('hashchange', show);
  show();
}
