import TesseraSDK
