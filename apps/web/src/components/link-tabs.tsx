import { Box } from '@mui/material';
import { useEffect, useRef, type KeyboardEvent } from 'react';
import { Link } from 'react-router';
import { focusRing } from '../lib/theme';

export interface LinkTab {
  value: string;
  label: string;
  to: string;
}

const KEYS = ['ArrowRight', 'ArrowLeft', 'Home', 'End'];

/**
 * A row of tabs that are links (a page's sections), looking and working like MUI's Tabs: tablist
 * and tab roles, the selected tab the row's one tab stop, arrow keys, Home and End move between
 * tabs, Enter or Space opens one. Unlike MUI's Tabs it reads no layout while React commits (MUI
 * measures its indicator, scroll buttons and scrollbar there), which made a phone's first render of
 * the dashboard one long task. The underline is a border; on a narrow screen the row scrolls by
 * itself, never the page.
 */
export function LinkTabs({ value, tabs }: { value: string; tabs: LinkTab[] }) {
  const row = useRef<HTMLDivElement>(null);

  // After the paint (the layout is then already known): a selected tab past a phone's edge is
  // scrolled into the row's view.
  useEffect(() => {
    const el = row.current;
    if (el && el.scrollWidth > el.clientWidth)
      el.querySelector<HTMLElement>('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [value]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const all = [...(row.current?.querySelectorAll<HTMLElement>('[role="tab"]') ?? [])];
    const at = all.indexOf(e.target as HTMLElement);
    if (at < 0) return;
    if (e.key === ' ') {
      // A link opens with Enter by itself; a tab opens with Space too.
      e.preventDefault();
      all[at]!.click();
      return;
    }
    if (!KEYS.includes(e.key)) return;
    e.preventDefault();
    const next =
      e.key === 'Home'
        ? 0
        : e.key === 'End'
          ? all.length - 1
          : (at + (e.key === 'ArrowRight' ? 1 : -1) + all.length) % all.length;
    all[next]!.focus();
  };

  return (
    <Box
      ref={row}
      role="tablist"
      onKeyDown={onKeyDown}
      sx={(theme) => ({
        display: 'flex',
        mb: 2,
        borderBottom: 1,
        borderColor: 'divider',
        overflowX: 'auto',
        scrollbarWidth: 'none',
        '&::-webkit-scrollbar': { display: 'none' },
        '& [role="tab"]': {
          ...theme.typography.button,
          lineHeight: 1.25,
          display: 'inline-flex',
          alignItems: 'center',
          justifyContent: 'center',
          flexShrink: 0,
          minWidth: 90,
          minHeight: 48,
          px: 2,
          py: 1.5,
          color: 'text.secondary',
          textDecoration: 'none',
          whiteSpace: 'nowrap',
          borderBottom: '2px solid transparent',
          '&:hover': { color: 'text.primary' },
          '&[aria-selected="true"]': { color: 'primary.main', borderBottomColor: 'primary.main' },
          // Inside the tab: the row's edge (it scrolls) would cut a ring drawn outside.
          '&:focus-visible': { ...focusRing(theme.palette.mode === 'dark'), outlineOffset: -2 },
        },
      })}
    >
      {tabs.map((tab) => (
        <Link
          key={tab.value}
          role="tab"
          to={tab.to}
          aria-selected={tab.value === value}
          tabIndex={tab.value === value ? 0 : -1}
        >
          {tab.label}
        </Link>
      ))}
    </Box>
  );
}
