/** Where a completed session sends the customer: its success URL with `session_id` (the page and the API alike). */
export const successRedirect = (successUrl: string, id: string) => {
  const u = new URL(successUrl);
  u.searchParams.set('session_id', id);
  return u.toString();
};
