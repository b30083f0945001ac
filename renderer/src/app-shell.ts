import type { AppContext, Screen } from './app-context.js';
import { auditScreen } from './audit/audit-screen.js';
import { botScreen } from './bots/bot-screen.js';
import { botsScreen } from './bots/bots-screen.js';
import { chunksScreen } from './chunks/chunks-screen.js';
import { finalizeScreen } from './finalize/finalize-screen.js';
import { libraryScreen } from './library/library-screen.js';
import { modelsScreen } from './models/models-screen.js';
import { DeskMemory } from './review/desk-memory.js';
import { reviewScreen } from './review/review-screen.js';
import { parseRoute, type Route } from './router.js';
import { searchScreen } from './search/search-screen.js';
import { h } from './ui/dom.js';

const REVIEWER_SLOT = 'lectern.reviewer';

function mount(ctx: AppContext, route: Route): Screen {
  switch (route.screen) {
    case 'library':
      return libraryScreen(ctx);
    case 'bots':
      return botsScreen(ctx);
    case 'models':
      return modelsScreen(ctx);
    case 'bot':
      return botScreen(ctx, route.botId);
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
  if (!('jobId' in route)) return null;
  const id = encodeURIComponent(route.jobId);
  const tabs: [string, string][] = [
    ['review', 'Review'],
    ['chunks', 'Chunks'],
    ['finalize', 'Finalize & export'],
    ['audit', 'Audit'],
  ];
  // Search and chat appear only on servers that have them (an older server has neither route).
  if (ctx.caps.search || ctx.caps.chat) tabs.push(['search', 'Search & chat']);
  return h(
    'nav',
    { class: 'tabs', 'aria-label': 'Job' },
    ...tabs.map(([s, text]) =>
      h(
        'a',
        {
          href: `#/jobs/${id}/${s}`,
          class: s === route.screen ? 'active' : '',
          'aria-current': s === route.screen ? 'page' : false,
        },
        text,
      ),
    ),
  );
}

/** The frame around every screen: brand, sections, job tabs, reviewer name; swaps screens on hash changes. */
export function startShell(ctx: Omit<AppContext, 'navigate' | 'desks'>, root: HTMLElement): void {
  const app: AppContext = { ...ctx, desks: new DeskMemory(), navigate: (hash) => void (location.hash = hash) };
  const reviewer = h('input', {
    class: 'reviewer',
    'aria-label': 'Reviewer name',
    placeholder: 'Your name (for the audit trail)',
    value: localStorage.getItem(REVIEWER_SLOT) ?? '',
  });
  ctx.api.setReviewer(reviewer.value);
  reviewer.addEventListener('change', () => {
    localStorage.setItem(REVIEWER_SLOT, reviewer.value.trim());
    ctx.api.setReviewer(reviewer.value);
  });
  reviewer.addEventListener('keydown', (e) => e.stopPropagation());
  const tabsSlot = h('div', { class: 'tabs-slot' });
  const main = h('main', { id: 'screen' });
  // The Bots screen sits beside the library, on servers that have bots.
  const library = h('a', { href: '#/' }, 'Library');
  const bots = ctx.caps.bots ? h('a', { href: '#/bots' }, 'Bots') : null;
  const models = ctx.caps.models ? h('a', { href: '#/models' }, 'Models') : null;
  const sections = h('nav', { class: 'sections', 'aria-label': 'Sections' }, library, bots, models);
  root.replaceChildren(
    h(
      'header',
      { class: 'app-header' },
      h('a', { href: '#/', class: 'brand' }, 'Lectern'),
      sections,
      tabsSlot,
      reviewer,
    ),
    main,
  );
  let screen: Screen | undefined;
  const show = () => {
    const route = parseRoute(location.hash);
    screen?.dispose();
    screen = mount(app, route);
    tabsSlot.replaceChildren(jobTabs(app, route) ?? '');
    main.replaceChildren(screen.element);
    main.dataset.screen = route.screen;
    const inBots = route.screen === 'bots' || route.screen === 'bot';
    for (const [link, on] of [
      [library, route.screen === 'library'],
      [bots, inBots],
      [models, route.screen === 'models'],
    ] as const) {
      link?.classList.toggle('active', on);
      if (on) link?.setAttribute('aria-current', 'page');
      else link?.removeAttribute('aria-current');
    }
  };
  window.addEventListener('hashchange', show);
  show();
}
