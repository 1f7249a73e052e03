/** The largest template and mapping Docwright takes, however they come (API upload, policy folder, command line). */
export const TEMPLATE_LIMIT = 50 * 1024 * 1024;
export const MAPPING_LIMIT = 1024 * 1024;
