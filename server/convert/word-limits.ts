/** Word's nine list levels (ilvl 0–8); deeper items render at the last one with a warning. */
export const MAX_LIST_LEVELS = 9;
