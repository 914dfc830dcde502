/** The compiled script's curl data plane (curl.sh), shared by the engines that time requests through curl. */
export const CURL_SHELL = new URL("./curl.sh", import.meta.url);
