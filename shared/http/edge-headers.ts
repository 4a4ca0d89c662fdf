/**
 * Headers the CloudFront distribution adds to every origin request. They are named here, with no
 * other imports, because both the request chain and the CDK stack (infra/) read them.
 */

/** The origin secret: CloudFront sets it as an origin custom header, overwriting any viewer's. */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';

/**
 * The host the viewer asked for (the distribution's or a custom domain). A CloudFront Function
 * copies Host into it, because the origin request carries API Gateway's own Host. A viewer can
 * send it too, so it counts only on requests that passed the origin check.
 */
export const VIEWER_HOST_HEADER = 'x-viewer-host';

/**
 * The viewer's address and port as CloudFront saw them (`198.51.100.10:46532`, `[2001:db8::1]:46532`
 * or `2001:db8::1:46532`), forwarded by the API behaviour's origin request policy. API Gateway's
 * own source address is CloudFront's edge, shared by every viewer behind it. It counts only on
 * requests that passed the origin check; the local gateway sets it from its socket.
 */
export const VIEWER_ADDRESS_HEADER = 'cloudfront-viewer-address';
