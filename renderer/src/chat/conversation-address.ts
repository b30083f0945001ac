/**
 * The open conversation is written in the address (`#/jobs/ID/search?conversation=…`, `#/bots/ID?conversation=…`),
 * so a reload or coming back from a citation opens it again; its turns are read from the server each time.
 * Replaced, not pushed: switching conversations is not a step Back should undo, and no hashchange remounts the screen.
 */
export function conversationInAddress(): string | null {
  const query = location.hash.split('?')[1] ?? '';
  return new URLSearchParams(query).get('conversation');
}

export function writeConversationAddress(id: string | null): void {
  const [path = '', query = ''] = location.hash.split('?');
  const params = new URLSearchParams(query);
  if (id) params.set('conversation', id);
  else params.delete('conversation');
  const rest = params.toString();
  history.replaceState(history.state, '', `${path}${rest ? `?${rest}` : ''}`);
}
