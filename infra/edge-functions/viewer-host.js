// CloudFront Function (cloudfront-js-2.0), viewer request, on the API's default behaviour.
// The origin request carries API Gateway's Host, so the host the viewer asked for travels on in
// x-viewer-host. Set here on every request, so a viewer's own x-viewer-host never reaches the
// origin; the origin trusts it only on requests that carry the origin secret.
function handler(event) {
  var request = event.request;
  var host = request.headers.host;
  if (host && host.value) {
    request.headers['x-viewer-host'] = { value: host.value };
  } else {
    delete request.headers['x-viewer-host'];
  }
  return request;
}
