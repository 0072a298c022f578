package web

// QRMatrix lets the tests compare the SVG with the modules of the code it draws.
var QRMatrix = qrMatrix
