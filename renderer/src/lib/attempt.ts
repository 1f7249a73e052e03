// A user action's outcome as the notice a page shows: its confirmation, or its error in words.

export interface Notice {
  kind: 'ok' | 'error' | 'warn';
  text: string;
}

/** Runs an action that returns a confirmation (or null: nothing to say); errors become an error notice. */
export async function attempt(action: () => Promise<string | null>): Promise<Notice | null> {
  try {
    const text = await action();
    return text ? { kind: 'ok', text } : null;
  } catch (error) {
    return { kind: 'error', text: error instanceof Error ? error.message : String(error) };
  }
}
