/** The API's semantic version, sent in every `API-Version` header; see CHANGELOG.md. */
export const API_VERSION = "1.12.0";
