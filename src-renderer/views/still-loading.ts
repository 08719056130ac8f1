// What a control that acts on the whole session says while the session's log is still loading.
export const STILL_LOADING = 'The log is still loading: this works on the whole session, once all of it is read';
