// Reference Worker for `npm run bench`: the cheapest possible answer, the runtime's ceiling.
export default {
  fetch() {
    return new Response('ok');
  },
};
