import { postJson, requiredSecret, type Sender } from './sender.js';

/** Microsoft Teams incoming webhook: a legacy MessageCard, which every Teams connector accepts. */
export const sendTeams: Sender = (dest, p, ctx) =>
  postJson(dest, ctx, requiredSecret(dest, 'url'), {
    '@type': 'MessageCard',
    '@context': 'http://schema.org/extensions',
    summary: p.message.title,
    title: p.message.title,
    // The first line of the text is the title; Teams reads Markdown, where two spaces before a
    // newline keep the lines apart.
    text: p.message.text.split('\n').slice(1).join('  \n'),
    themeColor: p.message.color,
  });
