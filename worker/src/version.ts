/** The API's semantic version, sent in every `API-Version` header; see CHANGELOG.md. */
export const API_VERSION = "1.11.0";
