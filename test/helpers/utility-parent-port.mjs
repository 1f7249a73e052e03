// Loaded (--import) into a child started by the utilityProcess stand-in (utility-process.ts): gives it
// `process.parentPort` as Electron gives a utility process one (https://www.electronjs.org/docs/latest/api/parent-port),
// over Node's IPC channel: an EventEmitter whose 'message' event carries { data, ports }, messages received before a
// listener queued until one is registered, and postMessage(message) to the parent.
import { EventEmitter } from 'node:events';

const port = new EventEmitter();
const queued = [];
port.postMessage = (message) => {
  process.send?.(message);
};
process.on('message', (data) => {
  const event = { data, ports: [] };
  if (port.listenerCount('message') > 0) port.emit('message', event);
  else queued.push(event);
});
port.on('newListener', (name) => {
  if (name === 'message') queueMicrotask(() => queued.splice(0).forEach((event) => port.emit('message', event)));
});
Object.defineProperty(process, 'parentPort', { value: port, enumerable: false });
