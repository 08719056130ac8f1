// A shared trajectory (the HTML file `bundle` writes) is read by someone with no host, no
// runs folder and no other log: its page shows only what that reader can do (read, search,
// chart, replay, export, map coverage against a context file) and none of the controls,
// tabs and notes that need a host or speak to the person who made the file.
import { createContext, useContext, type ReactNode } from 'react';

const SharedReader = createContext(false);

export function SharedReaderProvider({ children }: { children: ReactNode }) {
  return <SharedReader.Provider value={true}>{children}</SharedReader.Provider>;
}

/** True in a shared trajectory's page. */
export function useSharedReader(): boolean {
  return useContext(SharedReader);
}
